/**
 * Env server throughput: steps/s over HTTP keep-alive with 1 and 8 concurrent clients.
 *
 *   node_modules/.bin/bun benchmarks/env-server.ts [--seconds 3] [--reps 3] [--env frozenlake]
 *
 * The server runs as its own process (`bun cli.ts env serve --port 0`), as a user runs it; each
 * client creates a session and then steps it with a random move (reset when the episode ends),
 * one request at a time, over fetch's keep-alive connections. The two concurrency levels
 * alternate within each repetition; medians over repetitions are printed, with one JSON line per
 * measurement. FrozenLake's step costs microseconds, so the figure is the server's own overhead
 * (HTTP parsing, JSON, checks), not the env's.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"

const argv = process.argv.slice(2)
const flag = (name: string, dflt: string): string => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1]! : dflt
}
const SECONDS = Number(flag("seconds", "3"))
const REPS = Number(flag("reps", "3"))
const ENV = flag("env", "frozenlake")
const ACTIONS = ["Up", "Down", "Left", "Right"]

const root = join(import.meta.dir, "..")
const child = spawn(process.execPath, [join(root, "cli.ts"), "env", "serve", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
const url: string = await new Promise((resolve, reject) => {
  let out = ""
  child.stdout!.on("data", (d) => {
    out += String(d)
    const m = /listening on (http:\/\/\S+)/.exec(out)
    if (m) resolve(m[1]!)
  })
  child.once("exit", (code) => reject(new Error(`env serve exited (${code}) before listening: ${out}`)))
})

const post = async (path: string, body: unknown): Promise<any> => {
  const r = await fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  const j = await r.json()
  if (r.status !== 200) throw new Error(`${path} → ${r.status}: ${JSON.stringify(j)}`)
  return j
}

const client = async (k: number, until: number): Promise<number> => {
  const { id } = await post("/create", { env: ENV, seed: k })
  let steps = 0
  let x = k + 1
  while (performance.now() < until) {
    x = (x * 1103515245 + 12345) >>> 0
    const r = await post("/step", { id, action: ACTIONS[x % 4] })
    steps++
    if (r.terminated || r.truncated) await post("/reset", { id, seed: steps })
  }
  return steps
}

const measure = async (clients: number): Promise<number> => {
  const t0 = performance.now()
  const until = t0 + SECONDS * 1000
  const counts = await Promise.all(Array.from({ length: clients }, (_, k) => client(k, until)))
  const dt = (performance.now() - t0) / 1000
  return counts.reduce((a, b) => a + b, 0) / dt
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

try {
  await measure(1) // warm-up: JIT, connections
  const res: Record<number, number[]> = { 1: [], 8: [] }
  for (let rep = 0; rep < REPS; rep++) {
    for (const c of [1, 8]) {
      const v = await measure(c)
      res[c]!.push(v)
      console.log(JSON.stringify({ task: `env-server ${ENV} steps/s, ${c} client(s)`, rep, stepsPerSecond: Math.round(v), runtime: `bun ${Bun.version}` }))
    }
  }
  console.log(`\nenv server (${ENV}, HTTP keep-alive, ${SECONDS} s × ${REPS} reps), median steps/s:`)
  for (const c of [1, 8]) console.log(`  ${c} client(s): ${Math.round(median(res[c]!))}  (reps: ${res[c]!.map(Math.round).join(", ")})`)
} finally {
  child.kill("SIGTERM")
}
