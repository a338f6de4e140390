/**
 * docs/decisions.md#issue-30: `serve --env <env>` then `eval` and `diagnose` with default flags work, and measure
 * what the in-process `eval --policy tinylm` of the same checkpoint measures. serve (a child
 * process, any free port) serves the env's shipped warm start and says in /v1/models its id and
 * hash, its context (max_model_len) and its trainer's prompt style, which the openai policy's
 * default `--instructions auto` follows. The episode count (128 per env, a few seconds each on
 * 2 cores) gives Wilson intervals of about ±7 points: narrow enough that prompts rendered
 * otherwise (the task description shown, as before) or an untrained model fail the check.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { bunBin, mainTs, root, runCli } from "../helpers/cli.ts"
import { tempDir } from "../sweep/helpers.ts"

const EPISODES = "128"

interface Served {
  readonly child: ChildProcess
  readonly url: string
}

const startServe = (args: ReadonlyArray<string>): Promise<Served> =>
  new Promise((resolve, reject) => {
    const child = spawn(bunBin, [mainTs, "serve", "--port", "0", ...args], { cwd: root, env: { ...process.env, NO_COLOR: "1" } })
    let out = ""
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000)
    const onData = (d: Buffer) => {
      out += String(d)
      const m = /at (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out)
      if (m) clearTimeout(timer), resolve({ child, url: m[1]! })
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.on("exit", () => reject(new Error(`serve exited: ${out}`)))
  })

const summaryOf = (args: ReadonlyArray<string>): { success: { mean: number; lo: number; hi: number } } => {
  const r = runCli(["eval", ...args, "--episodes", EPISODES, "--out", tempDir("serve-default"), "--json"], { timeoutMs: 240_000 })
  expect(r.stderr).toBe("")
  expect(r.code).toBe(0)
  return JSON.parse(r.stdout)
}

for (const env of ["frozenlake", "sokoban"]) {
  describe(`serve --env ${env}, then eval and diagnose with default flags`, () => {
    let served: Served
    beforeAll(async () => {
      served = await startServe(["--env", env])
    }, 90_000)
    afterAll(() => {
      served.child.kill()
    })

    test("/v1/models names the warm start by id and hash, its context and its trainer's prompt style", async () => {
      const m = (await (await fetch(`${served.url}/models`)).json()) as { data: Array<Record<string, any>> }
      expect(m.data).toHaveLength(1)
      const card = m.data[0]!
      expect(card.id).toBe("tinylm")
      expect(card.root).toMatch(new RegExp(`^${env}-tiny@[0-9a-f]{12}$`))
      expect(card.max_model_len).toBe(128)
      expect(card.prompt_style).toEqual({ context: "auto", historyTurns: 2, instructions: "auto" })
    })

    test("eval's success over HTTP lies within the in-process eval's 95% interval for the same checkpoint", () => {
      const remote = summaryOf(["--policy", "openai", "--base-url", served.url, "--model", "tinylm", "--env", env])
      const local = summaryOf(["--policy", "tinylm", "--checkpoint", join(root, "plugins", "tinylm", "warmstarts", `${env}-tiny.safetensors`), "--env", env])
      expect(local.success.mean).toBeGreaterThan(0.3) // the warm start, not an untrained model
      expect(remote.success.mean).toBeGreaterThanOrEqual(local.success.lo)
      expect(remote.success.mean).toBeLessThanOrEqual(local.success.hi)
    }, 240_000)

    test("diagnose with default flags runs, MI included", () => {
      const r = runCli(["diagnose", "--policy", "openai", "--base-url", served.url, "--model", "tinylm", "--env", env, "--P", "4", "--G", "4", "--json"], { timeoutMs: 240_000 })
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      const report = JSON.parse(r.stdout)
      expect(report.rollout.format_valid).toBeGreaterThan(0.9)
      expect(report.mi.firstTurn).not.toBeNull()
    }, 240_000)

    test("a prompt that does not fit is one line naming its length, the context and the flag that helps", () => {
      const r = runCli(["eval", "--policy", "openai", "--base-url", served.url, "--model", "tinylm", "--env", env, "--instructions", "always", "--episodes", "1", "--out", tempDir("serve-long")])
      expect(r.code).toBe(2)
      const lines = r.stderr.trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^error: the prompt is \d+ tokens, over the context of tinylm \(128 tokens, max_model_len\); pass --instructions never/)
    }, 60_000)
  })
}

describe("serve without a warm start", () => {
  test("--untrained serves an untrained model, and says so in /v1/models", async () => {
    const u = await startServe(["--env", "frozenlake", "--untrained"])
    try {
      const m = (await (await fetch(`${u.url}/models`)).json()) as { data: Array<Record<string, any>> }
      expect(m.data[0]!.root).toBe("untrained (envs/frozenlake-v1, seed 0)")
    } finally {
      u.child.kill()
    }
  }, 90_000)
})
