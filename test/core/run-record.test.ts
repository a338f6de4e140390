/**
 * The resolved config is the record (docs/decisions.md#issue-13): config.json holds every default; the run id
 * hashes it with the results-semantics version; a changed default gives a new id; misspelt keys
 * are errors naming the nearest key on every surface; `train --from <run>/config.json` re-runs it.
 */
import { describe, expect, test } from "bun:test"
import { Cause, Effect, Exit, Schema } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { configFromFlags, readConfigFile } from "../../core/cli/commands/train.ts"
import { definePlugin, type Filter, type PluginInput } from "../../core/contracts/index.ts"
import { contentHash } from "../../core/hash.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { runIdOf } from "../../core/results/store.ts"
import { SEMANTICS_VERSION } from "../../core/semantics.ts"
import { TrainOptions } from "../../core/train/options.ts"
import { runTraining } from "../../core/train/run.ts"
import { resolveSetup } from "../../core/train/setup.ts"
import { runCli } from "../helpers/cli.ts"
import { metricsWithoutPerf } from "../helpers/run-metrics.ts"
import { cfg, testPlugin } from "../train/fixtures.ts"

const plugins: PluginInput[] = [...builtinPlugins, testPlugin]
const resolve = (raw: unknown, extra: PluginInput[] = []) => Effect.runSyncExit(resolveSetup(raw).pipe(Effect.provide(registryLayerFrom([...plugins, ...extra]))))
const resolved = (raw: unknown, extra: PluginInput[] = []) => {
  const exit = resolve(raw, extra)
  if (Exit.isFailure(exit)) throw new Error(String((Cause.squash(exit.cause) as Error).message))
  return exit.value
}
const errorOf = (raw: unknown): string => {
  const exit = resolve(raw)
  return Exit.isFailure(exit) ? String((Cause.squash(exit.cause) as Error).message) : "(no error)"
}
const flags = (o: Record<string, unknown>) => Effect.runSync(configFromFlags(o, (id) => (id.includes("top-p") ? "p" : undefined)))

describe("the resolved config", () => {
  test("holds every default of the trainer, algorithm, filter, env and policy, ids in full", () => {
    const s = resolved({ env: "frozenlake", algo: "ppo", filter: "top-p" })
    const c = s.config
    expect(c.env).toBe("envs/frozenlake-v1")
    expect(c.algo).toBe("algorithms/ppo")
    expect(c.filter).toBe("filters/top-p")
    expect(c.policy).toBe("tinylm/tinylm")
    const trainKeys = Object.keys((TrainOptions as any).fields).filter((k) => !["minibatches", "minibatchSize", "init", "sftSeed", "lossAgg", "teacherForcing", "sftInstanceShare"].includes(k)) // optional: recorded only when set, so that older run ids hold
    for (const k of trainKeys) expect(Object.keys(c.train)).toContain(k)
    expect(c.train.maxTurns).toBe(5)
    expect(c.train.maxTokens).toBe(64)
    expect(c.algoOptions).toMatchObject({ clipLow: 0.2, clipHigh: 0.28 })
    expect(c.filterOptions).toMatchObject({ p: 0.9, includeZero: false })
    expect(Object.keys(c.envOptions)).toContain("successRate")
    expect(c.policyOptions).toMatchObject({ preset: "tiny", betas: [0.9, 0.999] })
    // Resolving a resolved config changes nothing: it is its own record.
    expect(resolved(c).config).toEqual(c)
    expect(s.plugins.map((p) => p.name).sort()).toEqual(["algorithms", "envs", "filters", "scorers", "tinylm"])
  })

  test("two spellings of the same settings are one run; another seed or setting is another", () => {
    const a = runIdOf(resolved({ env: "frozenlake", filter: "top-p" }).config).runId
    const b = runIdOf(resolved({ env: "envs/frozenlake-v1", filter: "filters/top-p", filterOptions: { p: 0.9 }, train: { evalEvery: 10 } }).config).runId
    expect(b).toBe(a)
    expect(runIdOf(resolved({ env: "frozenlake", filter: "top-p", seed: 2 }).config).runId).not.toBe(a)
    expect(runIdOf(resolved({ env: "frozenlake", filter: "top-p", filterOptions: { p: 0.8 } }).config).runId).not.toBe(a)
  })

  test("a changed default (same raw config, another plugin version) gives a new run id", () => {
    const filterWith = (eps: number): Filter => ({
      name: "thr",
      description: "keeps groups whose spread exceeds eps",
      options: Schema.Struct({ eps: Schema.Finite.pipe(Schema.withDecodingDefault(Effect.succeed(eps))) }),
      select: (groups) => ({ keep: groups.map((g) => ({ group: g.index, trajectories: g.returns.map((_, k) => k) })) })
    })
    const raw = { env: "frozenlake", filter: "thr" }
    const v1 = resolved(raw, [definePlugin({ name: "mine", version: "1", filters: [filterWith(0.01)] })]).config
    const v2 = resolved(raw, [definePlugin({ name: "mine", version: "2", filters: [filterWith(0.02)] })]).config
    expect(v1.filterOptions).toEqual({ eps: 0.01 })
    expect(runIdOf(v2).runId).not.toBe(runIdOf(v1).runId)
  })

  test("the run id hashes the results-semantics version too", () => {
    const c = resolved({ env: "frozenlake" }).config
    expect(runIdOf(c).hash).toBe(contentHash({ config: c, semantics: SEMANTICS_VERSION }))
    expect(runIdOf(c).hash).not.toBe(contentHash({ config: c, semantics: SEMANTICS_VERSION + 1 }))
    expect(runIdOf(c).hash).not.toBe(contentHash(c))
  })
})

describe("a misspelt option is an error naming the nearest known key, on every surface", () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ env: "frozenlake", set: ["evalEvry=5"] }, "train.evalEvry: unknown option; did you mean evalEvery?"],
    [{ env: "frozenlake", algo: "ppo", set: ["algoOptions.clipHihg=0.3"] }, "algoOptions.clipHihg: unknown option; did you mean clipHigh?"],
    [{ env: "frozenlake", filter: "top-p", set: ["filterOptions.pp=0.9"] }, "filterOptions.pp: unknown option; did you mean p?"],
    [{ env: "frozenlake", set: ["envOptions.succesRate=0.8"] }, "envOptions.succesRate: unknown option; did you mean successRate?"],
    [{ env: "frozenlake", set: ["policyOptions.preest=small"] }, "policyOptions.preest: unknown option; did you mean preset?"],
    [{ env: "frozenlake", set: ["collapse.factDorp=0.3"] }, "train.collapse.factDorp: unknown option; did you mean factDrop?"]
  ]
  for (const [o, message] of cases) {
    test(String((o.set as string[])[0]), () => expect(errorOf(flags(o))).toBe(message))
  }

  test("__proto__, constructor and prototype are rejected, never walked", () => {
    for (const k of ["__proto__.polluted", "constructor.x", "train.prototype"]) {
      const exit = Effect.runSyncExit(configFromFlags({ env: "frozenlake", set: [`${k}=1`] }, () => undefined))
      expect(Exit.isFailure(exit) && String((Cause.squash(exit.cause) as Error).message)).toContain("is not allowed as a key")
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(errorOf(JSON.parse('{"env":"frozenlake","train":{"__proto__":{"x":1}}}'))).toBe('train.__proto__: "__proto__" is not allowed as a key')
  })

  test("through the CLI: exit 2, one line, before any work", () => {
    const r = runCli(["train", "--env", "frozenlake", "--set", "evalEvry=5", "--out", mkdtempSync(join(tmpdir(), "ragen-rec-"))])
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toBe("error: train.evalEvry: unknown option; did you mean evalEvery?")
  })
})

describe("train --from", () => {
  test("re-running a recorded config.json reproduces the run's metrics exactly", async () => {
    const a = mkdtempSync(join(tmpdir(), "ragen-from-a-"))
    const b = mkdtempSync(join(tmpdir(), "ragen-from-b-"))
    const quiet = { plugins, onLog: () => {} }
    const first = await runTraining(cfg({ steps: 4 }), { outDir: a, ...quiet })
    const recorded = JSON.parse(readFileSync(join(a, first.runId, "config.json"), "utf8"))
    expect(recorded.semantics).toBe(SEMANTICS_VERSION)
    expect(recorded.host.cores).toBeGreaterThanOrEqual(1)
    expect(recorded.plugins.find((p: { name: string }) => p.name === "test")).toEqual({ name: "test", version: "0.0.0", hash: "builtin" })
    const raw = Effect.runSync(readConfigFile(join(a, first.runId, "config.json")))
    const again = await runTraining(raw as any, { outDir: b, ...quiet })
    expect(again.runId).toBe(first.runId)
    const strip = (dir: string) => metricsWithoutPerf(join(dir, first.runId))
    expect(strip(b)).toEqual(strip(a))
    // A missing file, or a folder in its place, is one line naming --from.
    const fromError = (path: string) => {
      const exit = Effect.runSyncExit(readConfigFile(path))
      return Exit.isFailure(exit) ? String((Cause.squash(exit.cause) as Error).message) : "(no error)"
    }
    expect(fromError(join(a, "nope.json"))).toContain("file does not exist")
    expect(fromError(a)).toContain("not a regular file of at most 1 MB")
    // Flags override what --from gives.
    const over = Effect.runSync(configFromFlags({ from: join(a, first.runId, "config.json"), seed: "7" }, () => undefined))
    expect(over.seed).toBe(7)
    expect(over.env).toBe("test/bandit-v1")
  })
})
