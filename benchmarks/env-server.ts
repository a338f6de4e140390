/**
 * Env server throughput: steps/s over HTTP keep-alive with 1 and 8 concurrent clients.
 *
 *   node_modules/.bin/bun benchmarks/env-server.ts [--seconds 3] [--reps 3] [--env frozenlake]
 *     [--compare <checkout>]
 *
 * With --compare, a second server is started from another checkout of the project (e.g. an
 * older commit extracted with `git archive <commit> | tar -x -C /tmp/before`, node_modules
 * linked in), and the two are measured alternately in each repetition, so that a busy machine
 * affects both alike; the ratio this/other is printed. Next to steps/s the server's own CPU time
 * per step is reported (from /proc): on a shared machine it moves far less than throughput.
 * The server runs as its own process (`bun cli.ts env serve --port 0`), as a user runs it; each
 * client creates a session and then steps it with a random move (reset when the episode ends),
 * one request at a time, over fetch's keep-alive connections. The two concurrency levels
 * alternate within each repetition; medians over repetitions are printed, with one JSON line per
 * measurement. FrozenLake's step costs microseconds, so the figure is the server's own overhead
 * (HTTP parsing, JSON, checks), not the env's.
 */
import { join } from "node:path"
import { cpuSeconds, flag, roots } from "./_server-compare.ts"
import { spawnOnRuntime } from "../core/runtime.ts"

const SECONDS = Number(flag("seconds", "3"))
const REPS = Number(flag("reps", "3"))
const ENV = flag("env", "frozenlake")
const ACTIONS = ["Up", "Down", "Left", "Right"]

const serve = (dir: string): Promise<{ url: string; kill: () => void; pid: number }> => {
  const child = spawnOnRuntime(join(dir, "cli.ts"), ["env", "serve", "--port", "0"], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] })
  return new Promise((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (d) => {
      out += String(d)
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve({ url: m[1]!, kill: () => child.kill("SIGTERM"), pid: child.pid! })
    })
    child.once("exit", (code) => reject(new Error(`env serve in ${dir} exited (${code}) before listening: ${out}`)))
  })
}
const servers = await Promise.all(roots.map((r) => serve(r.dir)))
let url = servers[0]!.url

let resets = 0
const post = async (path: string, body: unknown): Promise<any> => {
  const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }
  // A pooled connection the server closed while idle resets once; that is the client's pool, not the server.
  const r = await fetch(url + path, init).catch(() => {
    resets++
    return fetch(url + path, init)
  })
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

/** Steps/s over HTTP, and the server's CPU microseconds per step (less sensitive to a busy machine). */
const measure = async (clients: number, pid = 0): Promise<{ rate: number; cpuUs: number }> => {
  const c0 = cpuSeconds(pid)
  const t0 = performance.now()
  const until = t0 + SECONDS * 1000
  const counts = await Promise.all(Array.from({ length: clients }, (_, k) => client(k, until)))
  const dt = (performance.now() - t0) / 1000
  const steps = counts.reduce((a, b) => a + b, 0)
  return { rate: steps / dt, cpuUs: ((cpuSeconds(pid) - c0) / steps) * 1e6 }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

try {
  const res = new Map<string, number[]>()
  const cpu = new Map<string, number[]>()
  for (let k = 0; k < roots.length; k++) {
    url = servers[k]!.url
    await measure(1) // warm-up: JIT, connections
  }
  for (let rep = 0; rep < REPS; rep++) {
    for (const c of [1, 8]) {
      for (let k = 0; k < roots.length; k++) {
        url = servers[k]!.url
        const { rate: v, cpuUs } = await measure(c, servers[k]!.pid)
        const key = `${roots[k]!.label}/${c}`
        res.set(key, [...(res.get(key) ?? []), v])
        cpu.set(key, [...(cpu.get(key) ?? []), cpuUs])
        console.log(
          JSON.stringify({
            task: `env-server ${ENV} steps/s, ${c} client(s)`,
            server: roots[k]!.label,
            rep,
            stepsPerSecond: Math.round(v),
            serverCpuUsPerStep: Math.round(cpuUs),
            runtime: `bun ${Bun.version}`
          })
        )
      }
    }
  }
  console.log(`\nenv server (${ENV}, HTTP keep-alive, ${SECONDS} s × ${REPS} reps), median steps/s (${resets} stale-connection retries):`)
  for (const c of [1, 8]) {
    const line = roots.map((r) => `${r.label} ${Math.round(median(res.get(`${r.label}/${c}`)!))} (reps ${res.get(`${r.label}/${c}`)!.map(Math.round).join(", ")})`).join("; ")
    const ratio = roots.length > 1 ? `; ratio this/other ${(median(res.get(`this/${c}`)!) / median(res.get(`other/${c}`)!)).toFixed(2)}` : ""
    console.log(`  ${c} client(s): ${line}${ratio}`)
    const cline = roots.map((r) => `${r.label} ${Math.round(median(cpu.get(`${r.label}/${c}`)!))} µs`).join("; ")
    const cratio = roots.length > 1 ? `; ratio this/other ${(median(cpu.get(`this/${c}`)!) / median(cpu.get(`other/${c}`)!)).toFixed(2)}` : ""
    console.log(`             server CPU per step (median): ${cline}${cratio}`)
  }
} finally {
  for (const s of servers) s.kill()
}
