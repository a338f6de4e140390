/**
 * Redis and process helpers for the queue tests: a redis-server of our own on a free loopback
 * port (stopped, restarted, with a password or TLS), the CLI in background processes with
 * their output captured, and waiting for a condition.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { bunBin, mainTs, root } from "../helpers/cli.ts"

export const REDIS = "/usr/bin/redis-server"
export const redisAvailable = existsSync(REDIS)
if (!redisAvailable) {
  if (process.env.CI === "true") throw new Error(`${REDIS} is missing: .ci/run must apt-get install redis-server`)
  console.log(`skipping the BullMQ queue tests: ${REDIS} is missing (apt-get install -y redis-server)`)
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export const waitFor = async (what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> => {
  const t0 = Date.now()
  while (!(await cond())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.once("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

export interface RedisOptions {
  readonly password?: string
  /** PEM files of a self-signed certificate: the server listens with TLS only. */
  readonly tls?: { readonly cert: string; readonly key: string }
}

export interface RedisHandle {
  readonly port: number
  /** redis:// or rediss:// URL with the password, as a user would write it. */
  readonly url: string
  stop(): Promise<void>
  /** Kill the server and start a fresh one on the same port (no persistence: the data are gone). */
  restart(downMs?: number): Promise<void>
}

export const startRedis = async (opts: RedisOptions = {}): Promise<RedisHandle> => {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), "ragen-redis-"))
  const args = [
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
    ...(opts.password ? ["--requirepass", opts.password] : []),
    ...(opts.tls
      ? ["--port", "0", "--tls-port", String(port), "--tls-cert-file", opts.tls.cert, "--tls-key-file", opts.tls.key, "--tls-ca-cert-file", opts.tls.cert, "--tls-auth-clients", "no"]
      : ["--port", String(port)])
  ]
  let proc: ChildProcess
  let log = ""
  const up = async (): Promise<void> => {
    log = ""
    proc = spawn(REDIS, args, { stdio: ["ignore", "pipe", "pipe"] })
    proc.stdout!.on("data", (d: Buffer) => (log += d.toString()))
    proc.stderr!.on("data", (d: Buffer) => (log += d.toString()))
    await waitFor(
      `redis-server on port ${port}`,
      () => {
        if (proc.exitCode !== null) throw new Error(`redis-server exited: ${log}`)
        return log.includes("Ready to accept connections")
      },
      10_000
    )
  }
  const down = async (): Promise<void> => {
    if (proc.exitCode !== null) return
    const exited = new Promise((r) => proc.once("exit", r))
    proc.kill("SIGKILL")
    await exited
  }
  await up()
  const auth = opts.password ? `:${encodeURIComponent(opts.password)}@` : ""
  return {
    port,
    url: `${opts.tls ? "rediss" : "redis"}://${auth}127.0.0.1:${port}`,
    stop: down,
    restart: async (downMs = 500) => {
      await down()
      await sleep(downMs)
      await up()
    }
  }
}

/** A self-signed certificate for 127.0.0.1 (openssl), or undefined when openssl is missing. */
export const selfSignedCert = (): { cert: string; key: string } | undefined => {
  const dir = mkdtempSync(join(tmpdir(), "ragen-tls-"))
  const cert = join(dir, "cert.pem")
  const key = join(dir, "key.pem")
  const r = spawnSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert], {
    encoding: "utf8"
  })
  return r.status === 0 ? { cert, key } : undefined
}

export interface Proc {
  readonly child: ChildProcess
  output(): string
  exited: Promise<number>
}

/**
 * Every process of a test reports the package version as its code version (git finds no
 * repository): a commit made in this working tree by someone else mid-test would otherwise give
 * the workers and the coordinator different code versions, which the workers rightly refuse.
 */
const NO_GIT = { GIT_DIR: join(tmpdir(), "ragen-no-git") }

/** The CLI in the background; stdout and stderr captured together. */
export const startCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Proc => {
  const child = spawn(bunBin, [mainTs, ...args], { cwd: root, env: { ...process.env, NO_COLOR: "1", ...NO_GIT, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()))
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()))
  const exited = new Promise<number>((r) => child.on("exit", (code, sig) => r(code ?? (sig ? 128 : -1))))
  return { child, output: () => out, exited }
}

/** Run the CLI to its end. */
export const cli = async (args: ReadonlyArray<string>, env: Record<string, string> = {}, timeoutMs = 150_000): Promise<{ code: number; out: string }> => {
  const p = startCli(args, env)
  const timer = setTimeout(() => p.child.kill("SIGKILL"), timeoutMs)
  const code = await p.exited
  clearTimeout(timer)
  return { code, out: p.output() }
}

export const stopProc = async (p: Proc, signal: NodeJS.Signals = "SIGTERM"): Promise<void> => {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return
  p.child.kill(signal)
  const t = setTimeout(() => p.child.kill("SIGKILL"), 10_000)
  await p.exited
  clearTimeout(t)
}

/** Every file under a folder, as relative path → text. */
export const readTree = (dir: string): Map<string, string> => {
  const out = new Map<string, string>()
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n)
      if (statSync(p).isDirectory()) walk(p)
      else out.set(relative(dir, p), readFileSync(p, "utf8"))
    }
  }
  if (existsSync(dir)) walk(dir)
  return out
}

/** config.json without the fields that record time, host and runtime. */
export const stableConfig = (text: string): unknown => {
  const { createdAt: _c, runtime: _r, host: _h, ...rest } = JSON.parse(text)
  return rest
}

/** summary.json without its wall time (the fake trainer's is nominal: steps × the step sleep). */
export const stableSummary = (text: string): unknown => {
  const { wallSeconds: _w, ...rest } = JSON.parse(text)
  return rest
}
