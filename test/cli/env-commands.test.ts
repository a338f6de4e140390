import { describe, expect, test } from "bun:test"
import { spawn, spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))
const BUN = `${root}node_modules/.bin/bun`
const cli = (args: string[], input?: string) => {
  const r = spawnSync(BUN, ["cli.ts", ...args], { cwd: root, input, encoding: "utf8", timeout: 30_000 })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

describe("env show", () => {
  test("prints the observation, the teacher's trace and the return", () => {
    const r = cli(["env", "show", "countdown", "--seed", "3", "--teacher"])
    expect(r.code).toBe(0)
    expect(r.out).toContain("observation:")
    expect(r.out).toContain("reasoning: rev ") // the teacher's scratchpad (envs/countdown/teacher.ts)
    expect(r.out).toContain("factAccuracy 1.00  consistency 1.00")
    expect(r.out).toMatch(/reward 1 {2}terminated true/)
    expect(r.out).toContain("return 1")
  })
  test("without --teacher: the first observation only; bad flags exit 2 with a message", () => {
    const r = cli(["env", "show", "metamathqa-v1", "--seed", "4"])
    expect(r.code).toBe(0)
    expect(r.out).toContain("?")
    expect(r.out).not.toContain("reasoning:")
    const bad = cli(["env", "show", "countdown", "--option", "maxCount=99"])
    expect(bad.code).toBe(2)
    expect(bad.err).toContain("maxCount")
    expect(cli(["env", "show", "nope"]).code).toBe(2)
    expect(cli(["env", "fly"]).code).toBe(2)
    expect(cli(["env", "show", "countdown", "--epsilon", "2"]).err).toContain("--epsilon")
  })
})

describe("play (piped stdin)", () => {
  test("reads actions from a pipe and prints reward and return", () => {
    const show = cli(["env", "show", "countdown", "--seed", "5", "--teacher"])
    const action = /action: {4}(.*)/.exec(show.out)![1]!.trim()
    const r = cli(["play", "countdown", "--seed", "5"], `${action}\n`)
    expect(r.code).toBe(0)
    expect(r.out).toContain("reward 1")
    expect(r.out).toContain("return 1")
  })
  test("retries on metamathqa, input ending early", () => {
    const r = cli(["play", "metamathqa", "--seed", "1", "--option", "maxAttempts=3"], "hello\n99999\n")
    expect(r.code).toBe(0)
    expect(r.out).toContain("try again")
    expect(r.out).toContain("input ended before the episode did")
  })
})

describe("env serve", () => {
  test("--stdio answers one JSON line per request", () => {
    const req = [{ op: "envs" }, { op: "create", env: "countdown", seed: 2 }].map((x) => JSON.stringify(x)).join("\n") + "\n"
    const r = cli(["env", "serve", "--stdio"], req)
    expect(r.code).toBe(0)
    const lines = r.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(lines.length).toBe(2)
    expect(lines[0].envs.some((e: { id: string }) => e.id.endsWith("countdown-v1"))).toBe(true)
    expect(lines[1].status).toBe(200)
  })
  test("HTTP on an ephemeral loopback port; prints the URL; stops on SIGTERM", async () => {
    const child = spawn(BUN, ["cli.ts", "env", "serve", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (d) => (out += String(d)))
    const url = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 20_000)
      child.stdout.on("data", () => {
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
        if (m) {
          clearTimeout(t)
          resolve(m[1]!)
        }
      })
    })
    try {
      const c = await fetch(url + "/create", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ env: "metamathqa", seed: 0 }) })
      expect(c.status).toBe(200)
      const { id } = await c.json()
      const s = await fetch(url + "/step", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id, action: "<answer>0</answer>" }) })
      expect(await s.json()).toMatchObject({ terminated: true })
    } finally {
      child.kill("SIGTERM")
    }
    const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)))
    expect(code).toBe(0)
    expect(out).toContain("env server stopped")
  })
})
