/**
 * `ragen-bench serve` throughput: completions/s with 1 and 8 concurrent clients.
 *
 *   node_modules/.bin/bun benchmarks/serve-throughput.ts [--seconds 3] [--reps 3] [--max-tokens 32]
 *     [--compare <checkout>]
 *
 * The server runs as its own process, as a user runs it, serving FrozenLake's shipped warm start
 * by file (`bun cli.ts serve --checkpoint plugins/tinylm/warmstarts/frozenlake-tiny.safetensors
 * --port 0`, which every version of serve accepts). Each client posts /v1/completions
 * (a FrozenLake prompt, `max_tokens`, no stop string, its own seed per request) one at a time
 * over fetch keep-alive, until the time is up; at most 8 clients, so the bounded queue's default
 * (64) is never reached. With --compare, a second server from another checkout (e.g. the tree
 * before the change, as a `git worktree`, node_modules linked in) is measured alternately in
 * each repetition, so a busy machine affects both alike; the ratio this/other is printed, with
 * the server's CPU time per completion (from /proc), which a shared machine moves far less.
 */
import { join } from "node:path"
import { cpuSeconds, flag, roots } from "./_server-compare.ts"
import { spawnOnRuntime } from "../core/runtime.ts"

const SECONDS = Math.min(30, Number(flag("seconds", "3")))
const REPS = Math.min(20, Number(flag("reps", "3")))
const MAX_TOKENS = Math.min(127, Number(flag("max-tokens", "32")))
const PROMPT = "_ _ _ G\n_ O _ _\n_ _ P _\n_ O _ _\n<think>"

const serve = (dir: string): Promise<{ url: string; kill: () => void; pid: number }> => {
  const ckpt = join(dir, "plugins", "tinylm", "warmstarts", "frozenlake-tiny.safetensors")
  const child = spawnOnRuntime(join(dir, "cli.ts"), ["serve", "--checkpoint", ckpt, "--model", "tinylm", "--port", "0"], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] })
  return new Promise((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (d) => {
      out += String(d)
      const m = /at (http:\/\/\S+\/v1)/.exec(out)
      if (m) resolve({ url: m[1]!, kill: () => child.kill("SIGTERM"), pid: child.pid! })
    })
    child.once("exit", (code) => reject(new Error(`serve in ${dir} exited (${code}) before listening: ${out}`)))
  })
}

const complete = async (url: string, seed: number): Promise<void> => {
  const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "tinylm", prompt: PROMPT, max_tokens: MAX_TOKENS, temperature: 1, seed }) }
  // A pooled connection the server closed while idle resets once; that is the client's pool.
  const r = await fetch(`${url}/completions`, init).catch(() => fetch(`${url}/completions`, init))
  const j = await r.text()
  if (r.status !== 200) throw new Error(`completions → ${r.status}: ${j.slice(0, 200)}`)
}

const measure = async (url: string, clients: number, pid = 0): Promise<{ rate: number; cpuMs: number }> => {
  const c0 = cpuSeconds(pid)
  const t0 = performance.now()
  const until = t0 + SECONDS * 1000
  const counts = await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      let n = 0
      while (performance.now() < until) await complete(url, k * 1_000_003 + n++)
      return n
    })
  )
  const done = counts.reduce((a, b) => a + b, 0)
  return { rate: done / ((performance.now() - t0) / 1000), cpuMs: ((cpuSeconds(pid) - c0) / done) * 1000 }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const servers = await Promise.all(roots.map((r) => serve(r.dir)))
try {
  const rate = new Map<string, number[]>()
  const cpu = new Map<string, number[]>()
  for (const s of servers) await measure(s.url, 1) // warm-up: JIT, connections
  for (let rep = 0; rep < REPS; rep++) {
    for (const c of [1, 8]) {
      for (let k = 0; k < roots.length; k++) {
        const { rate: v, cpuMs } = await measure(servers[k]!.url, c, servers[k]!.pid)
        const key = `${roots[k]!.label}/${c}`
        rate.set(key, [...(rate.get(key) ?? []), v])
        cpu.set(key, [...(cpu.get(key) ?? []), cpuMs])
        console.log(
          JSON.stringify({
            task: `serve completions/s, ${MAX_TOKENS} tokens, ${c} client(s)`,
            server: roots[k]!.label,
            rep,
            perSecond: Number(v.toFixed(1)),
            serverCpuMsPer: Number(cpuMs.toFixed(2)),
            runtime: `bun ${Bun.version}`
          })
        )
      }
    }
  }
  console.log(`\nserve (FrozenLake warm start, ${MAX_TOKENS} tokens per completion, HTTP keep-alive, ${SECONDS} s × ${REPS} reps), median completions/s:`)
  for (const c of [1, 8]) {
    const line = roots
      .map(
        (r) =>
          `${r.label} ${median(rate.get(`${r.label}/${c}`)!).toFixed(1)} (reps ${rate
            .get(`${r.label}/${c}`)!
            .map((x) => x.toFixed(1))
            .join(", ")})`
      )
      .join("; ")
    const ratio = roots.length > 1 ? `; ratio this/other ${(median(rate.get(`this/${c}`)!) / median(rate.get(`other/${c}`)!)).toFixed(2)}` : ""
    console.log(`  ${c} client(s): ${line}${ratio}`)
    const cline = roots.map((r) => `${r.label} ${median(cpu.get(`${r.label}/${c}`)!).toFixed(2)} ms`).join("; ")
    const cratio = roots.length > 1 ? `; ratio this/other ${(median(cpu.get(`this/${c}`)!) / median(cpu.get(`other/${c}`)!)).toFixed(2)}` : ""
    console.log(`             server CPU per completion (median): ${cline}${cratio}`)
  }
} finally {
  for (const s of servers) s.kill()
}
