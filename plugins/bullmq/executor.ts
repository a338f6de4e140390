/**
 * The "bullmq" sweep executor: `ragen-bench sweep <spec> --queue redis://HOST:PORT[/DB]`
 * (core/contracts/executor.ts). Options are decoded strictly; a bad URL is a UsageError.
 */
import { Effect, Schema } from "effect"
import type { ExecutorSpec } from "../../core/contracts/index.ts"
import { makeCoordinator } from "./coordinator.ts"
import { checkReachable } from "./reach.ts"
import { parseRedisUrl } from "./url.ts"

const PosInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const dflt = (v: number) => PosInt.pipe(Schema.withDecodingDefault(Effect.succeed(v)))

export const BullmqOptions = Schema.Struct({
  /** redis://[[user]:password@]host:port[/db] or rediss://… (TLS). */
  url: Schema.String,
  /** Tries of a failing run, the first included, before it is recorded as failed. */
  attempts: dflt(3),
  /** Delay before the first retry, doubled after each (ms). */
  backoffMs: dflt(1000),
  /** How often the coordinator re-reads unfinished jobs (missed events, a restarted Redis), ms. */
  pollMs: dflt(1000)
})
export type BullmqOptions = typeof BullmqOptions.Type

export const bullmqExecutor: ExecutorSpec<BullmqOptions> = {
  id: "bullmq",
  description: "A BullMQ job queue on Redis: `ragen-bench worker --queue …` on any number of machines runs the jobs",
  options: BullmqOptions,
  make: async ({ url, attempts, backoffMs, pollMs }) => {
    const target = parseRedisUrl(url)
    if (!("host" in target)) throw target
    const unreachable = await checkReachable(target)
    if (unreachable) throw unreachable
    return makeCoordinator({ target, attempts, backoffMs, pollMs })
  }
}
