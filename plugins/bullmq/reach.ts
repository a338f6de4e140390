/**
 * One connection attempt before a command starts: a wrong host, port, password or TLS setting is
 * then a one-line error at once. Afterwards the queue's connections retry forever (a restarting
 * Redis is waited for), which would otherwise turn such a mistake into a silent hang.
 */
import { Redis } from "ioredis"
import { UsageError } from "../../core/host.ts"
import { connectionOptions, type RedisTarget, scrub } from "./url.ts"

export const checkReachable = async (target: RedisTarget, timeoutMs = 5000): Promise<UsageError | undefined> => {
  const client = new Redis({
    ...connectionOptions(target),
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null
  } as any)
  let first: string | undefined
  // The driver's own error (ECONNREFUSED, WRONGPASS, a certificate) comes as an event; the rejection only says "closed".
  client.on("error", (e) => void (first ??= String((e as Error)?.message ?? e)))
  try {
    await client.connect()
    await client.ping()
    return undefined
  } catch (e) {
    const why = scrub(target, first ?? String((e as Error)?.message ?? e))
    return new UsageError({
      field: "--queue",
      message: `cannot use the Redis at ${target.shown}: ${why}; check the host, port, password (RAGEN_REDIS_PASSWORD) and, for rediss://, the certificate (RAGEN_REDIS_CA)`
    })
  } finally {
    client.disconnect()
  }
}
