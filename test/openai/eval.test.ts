/**
 * `eval`: intervals (Wilson for success, percentile bootstrap for return), the run folder and
 * its schemas, the reproducible mark of remote runs, and the CLI's one-line errors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import type { Server } from "node:http"
import { join } from "node:path"
import { decodeSync } from "../../core/schema/decode.ts"
import { splitSeeds } from "../../core/env/instance-split.ts"
import { MetricsLine } from "../../core/contracts/results.ts"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { resolveAgent } from "../../plugins/openai/agent-flags.ts"
import { AgentEvalConfigFile, AgentEvalSummary } from "../../core/schema/agent-eval.ts"
import { runEval } from "../../plugins/openai/eval.ts"
import { bootstrapMean, wilson } from "../../plugins/openai/intervals.ts"
import { TinyLMServer } from "../../plugins/openai/serve.ts"
import { startServe } from "../../plugins/openai/serve-http.ts"
import { makeTinyLM, TinyLMOptions } from "../../plugins/tinylm/spec.ts"
import envsPlugin from "../../envs/plugin.ts"
import { runCli } from "../helpers/cli.ts"
import { tempDir } from "../sweep/helpers.ts"
import { remotePolicy } from "./fake-server.ts"

const strict = <T>(schema: any, x: unknown): T => {
  const r = decodeSync<T>(schema, x)
  if (!r.ok) throw new Error(r.message)
  return r.value
}

describe("intervals", () => {
  test("Wilson score interval: textbook values", () => {
    const a = wilson(0, 8)
    expect(a.lo).toBe(0)
    expect(a.hi).toBeCloseTo(1.959963984540054 ** 2 / (8 + 1.959963984540054 ** 2), 12) // z²/(n+z²) at p = 0
    const b = wilson(5, 10)
    expect(b.lo).toBeCloseTo(0.2366, 4)
    expect(b.hi).toBeCloseTo(0.7634, 4)
    expect(wilson(10, 10).hi).toBeCloseTo(1, 12)
  }, 120_000)

  test("percentile bootstrap: deterministic per seed, degenerate for constant data, brackets the mean", () => {
    const xs = [0, 1, 1, 0, 1, 0.1, -0.1, 1, 0, 1]
    const a = bootstrapMean(xs, 7),
      b = bootstrapMean(xs, 7)
    expect(a).toEqual(b)
    expect(a.lo).toBeLessThan(a.mean)
    expect(a.hi).toBeGreaterThan(a.mean)
    expect(bootstrapMean([0.5, 0.5, 0.5], 1)).toEqual({ mean: 0.5, lo: 0.5, hi: 0.5, n: 3 })
  }, 120_000)
})

describe("eval against a served model", () => {
  let server: Server
  let url: string
  beforeAll(async () => {
    const spec = envsPlugin.envs!.find((e) => e.id.startsWith("frozenlake"))!
    const eo = strict(spec.options, {})
    const local = await makeTinyLM(strict(TinyLMOptions, {}), { vocabulary: spec.vocabulary(eo), seed: 3 })
    const s = await startServe(new TinyLMServer(local, { model: "tiny" }), 0)
    server = s.server
    url = s.url
  }, 120_000)
  afterAll(() => {
    server.closeAllConnections?.()
    server.close()
  }, 120_000)

  test("writes config.json, metrics.jsonl and summary.json that decode strictly; marked not reproducible, no key", async () => {
    const flags = { env: "frozenlake", policy: "openai", baseUrl: url, model: "tiny", apiKeyEnv: "RAGEN_TEST_KEY", maxTurns: 2, seed: 4, instructions: "never" }
    process.env.RAGEN_TEST_KEY = "sk-never-written-anywhere"
    const a = await Effect.runPromise(resolveAgent(flags, { temperature: 0.5 }).pipe(Effect.provide(registryLayerFrom(builtinPlugins))))
    const policy = remotePolicy({ baseUrl: url, model: "tiny", apiKeyEnv: "RAGEN_TEST_KEY" }, process.env)
    const out = tempDir("openai-eval")
    const r = await runEval(policy, a, 5, 123, out)
    const files = ["config.json", "summary.json", "metrics.jsonl"].map((f) => readFileSync(join(r.dir, f), "utf8"))
    for (const f of files) expect(f).not.toContain("sk-never-written-anywhere")
    const config = strict<AgentEvalConfigFile>(AgentEvalConfigFile, JSON.parse(files[0]!))
    const summary = strict<AgentEvalSummary>(AgentEvalSummary, JSON.parse(files[1]!))
    expect(config.reproducible).toBe(false)
    expect(config.note).toContain("cannot be verified bit for bit")
    expect(config.config.policyOptions).toMatchObject({ apiKeyEnv: "RAGEN_TEST_KEY", model: "tiny" })
    expect(summary.reproducible).toBe(false)
    expect(summary.episodes).toBe(5)
    expect(summary.success.method).toBe("wilson-95")
    expect(summary.agent).toContain("openai tiny @ http://127.0.0.1:")
    const lines = files[2]!
      .trim()
      .split("\n")
      .map((l) => strict<MetricsLine>(MetricsLine, JSON.parse(l)))
    // each seed moved to a held-out validation instance, as the trainer validates
    const spec = envsPlugin.envs!.find((e) => e.id.startsWith("frozenlake"))!
    expect(config.config.instances).toBe("validation")
    expect(lines.map((l) => l.seed)).toEqual(await splitSeeds(spec, strict(spec.options, {}), [123, 124, 125, 126, 127], "validation"))
    expect(summary.success.mean).toBe(lines.filter((l) => l.success === 1).length / 5)
  }, 120_000)
})

describe("eval CLI", () => {
  test("tinylm: a complete, reproducible run folder", () => {
    const out = tempDir("openai-eval-cli")
    const r = runCli(["eval", "--env", "frozenlake", "--episodes", "3", "--max-turns", "2", "--out", out, "--json"], { timeoutMs: 120_000 })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const s = strict<AgentEvalSummary>(AgentEvalSummary, JSON.parse(r.stdout))
    expect(s.reproducible).toBe(true)
    expect(s.episodes).toBe(3)
    expect(readFileSync(join(out, s.runId, "config.json"), "utf8")).toContain('"reproducible": true')
  }, 120_000)

  test("user mistakes and an unreachable server are one-line errors (exit 2), never a stack", () => {
    const typo = runCli(["eval", "--env", "frozenlake", "--policy", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--policy-option", "concurency=2"])
    expect(typo.code).toBe(2)
    expect(typo.stderr.trim()).toBe("error: policyOptions (of openai/openai).concurency: unknown option; did you mean concurrency?")
    const missing = runCli(["eval", "--env", "frozenlake", "--policy", "openai", "--model", "m"])
    expect(missing.code).toBe(2)
    expect(missing.stderr.trim()).toBe("error: --policy openai needs --base-url, the server root with /v1 (e.g. http://127.0.0.1:8000/v1)")
    const down = runCli([
      "eval",
      "--env",
      "frozenlake",
      "--episodes",
      "1",
      "--policy",
      "openai",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--model",
      "m",
      "--policy-option",
      "retries=0",
      "--out",
      tempDir("openai-eval-down")
    ])
    expect(down.code).toBe(2)
    expect(down.stderr).toContain("error: http://127.0.0.1:9/v1/completions failed after 1 attempts; last: connection failed")
    expect(down.stderr.trim().split("\n").length).toBe(1)
  }, 120_000)
})
