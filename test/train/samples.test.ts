/**
 * samples.jsonl (core/train/samples.ts, core/results/samples.ts): written per evaluation, bounded,
 * cut back on resume, read back through its Schema, and invisible to the metrics (a run with
 * samples has the same metrics.jsonl as one without, on the bandit and on real envs whose
 * teachers plan).
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { appendFileSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync, ftruncateSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { MAX_SAMPLES_BYTES, readSamples, SAMPLES_FILE } from "../../core/results/samples.ts"
import { EPISODE_MAX_CHARS, FIELD_MAX_CHARS, type SamplesLine } from "../../core/schema/samples.ts"
import type { Trajectory, TurnRecord } from "../../core/train/rollout.ts"
import { runTraining } from "../../core/train/run.ts"
import { sampleEpisode, truncateText } from "../../core/train/samples.ts"
import { metricsWithoutPerf, runStoppedAfter } from "../helpers/run-metrics.ts"
import { cfg, testPlugin } from "./fixtures.ts"

const tmp = () => mkdtempSync(join(tmpdir(), "ragen-samples-"))
const quiet = { plugins: [...builtinPlugins, testPlugin], onLog: () => {} }

const samplesOf = (dir: string): SamplesLine[] => {
  const r = Effect.runSync(Effect.result(readSamples(join(dir, SAMPLES_FILE))))
  if (r._tag === "Failure") throw new Error(r.failure.message)
  return r.success.lines
}

const readFailure = (path: string): { _tag: string; message: string } => {
  const r = Effect.runSync(Effect.result(readSamples(path)))
  if (r._tag === "Success") throw new Error(`${path} was read`)
  return r.failure
}

describe("samples.jsonl from training", () => {
  test("one line per evaluation: the first evalSamples validation seeds at the headline temperature, with the teacher's facts", async () => {
    const out = tmp()
    const s = await runTraining(cfg({ steps: 6, P: 2, G: 2 }, { valSeeds: 8, evalEvery: 2, evalSamples: 3 }), { outDir: out, ...quiet })
    expect(s.status).toBe("complete")
    const lines = samplesOf(join(out, s.runId))
    expect(lines.map((l) => l.step)).toEqual([0, 2, 4, 6])
    for (const l of lines) {
      expect(l.temperature).toBe(0.5)
      expect(l.episodes.map((e) => e.seed)).toEqual([123, 124, 125])
      for (const e of l.episodes) {
        expect(e.turns.length).toBeGreaterThan(0)
        expect(e.return).toBe(e.turns.reduce((a, u) => a + u.reward, 0))
        for (const u of e.turns) {
          expect(u.prompt).toContain("lamp")
          // The bandit's teacher states the lamp of the state the prompt showed.
          expect(u.facts).toEqual([u.prompt.includes("lamp red") ? "lamp red" : "lamp green"])
          if (u.factAccuracy !== null) expect(u.factAccuracy).toBe(/lamp (red|green)/.exec(u.reasoning)?.[1] === u.facts![0]!.slice(5) ? 1 : 0)
        }
      }
    }
    expect(lines.flatMap((l) => l.episodes.flatMap((e) => e.turns)).filter((u) => u.factAccuracy !== null).length).toBeGreaterThan(0)
  })

  test("evalSamples 0 writes no file; the metrics are identical with and without samples", async () => {
    const a = tmp(),
      b = tmp()
    const with4 = await runTraining(cfg({ steps: 4, P: 2, G: 2 }, { valSeeds: 6, evalEvery: 2, evalSamples: 4 }), { outDir: a, ...quiet })
    const none = await runTraining(cfg({ steps: 4, P: 2, G: 2 }, { valSeeds: 6, evalEvery: 2, evalSamples: 0 }), { outDir: b, ...quiet })
    expect(existsSync(join(a, with4.runId, SAMPLES_FILE))).toBe(true)
    expect(existsSync(join(b, none.runId, SAMPLES_FILE))).toBe(false)
    expect(metricsWithoutPerf(join(a, with4.runId))).toEqual(metricsWithoutPerf(join(b, none.runId)))
  })

  // Real envs whose teachers plan (Sokoban searches, FrozenLake plans its path): asking for the
  // facts before each step must change neither the episode nor the sampling.
  for (const env of ["sokoban", "frozenlake"]) {
    test(`${env} (tabular policy): metrics identical with and without samples; facts are the state's`, async () => {
      const run = async (evalSamples: number) => {
        const out = tmp()
        // The tabular policy answers Left or Right (or no tags): real steps, between which the teacher is asked.
        const config = cfg({ env, steps: 3, P: 2, G: 2 }, { valSeeds: 4, evalEvery: 1, diagEvery: 0, evalSamples })
        const s = await runTraining(config, { outDir: out, ...quiet })
        expect(s.status).toBe("complete")
        return join(out, s.runId)
      }
      const withSamples = await run(2)
      if (process.env.SAMPLES_DEBUG) console.log(readFileSync(join(withSamples, SAMPLES_FILE), "utf8"))
      const without = await run(0)
      expect(metricsWithoutPerf(withSamples)).toEqual(metricsWithoutPerf(without))
      const lines = samplesOf(withSamples)
      expect(lines.map((l) => l.step)).toEqual([0, 1, 2, 3])
      const facts = lines.flatMap((l) => l.episodes.flatMap((e) => e.turns.map((u) => u.facts)))
      expect(facts.length).toBeGreaterThan(0)
      for (const f of facts) expect(f!.length).toBeGreaterThan(0)
      // Moves were taken, so the facts changed with the state within episodes.
      const moved = lines.flatMap((l) => l.episodes).filter((e) => new Set(e.turns.map((u) => JSON.stringify(u.facts))).size > 1)
      expect(moved.length).toBeGreaterThan(0)
      // Same validation seeds, same first prompt at every step: the episodes are comparable.
      expect(new Set(lines.map((l) => l.episodes.map((e) => e.turns[0]!.prompt).join("\n"))).size).toBe(1)
    }, 120_000)
  }

  test("the real tinylm (js kernels, batched sampling): metrics identical with and without samples", async () => {
    const run = async (evalSamples: number) => {
      const out = tmp()
      const config = cfg(
        { steps: 2, P: 2, G: 4, lr: 1e-3, policy: "tinylm", policyOptions: { kernels: "js", ctx: 64, d: 16, layers: 1, heads: 2 } },
        { minibatches: undefined, minibatchTrajectories: 4, sftSteps: 10, sftTurns: 64, sftBatch: 8, valSeeds: 8, evalEvery: 1, diagEvery: 1, evalSamples }
      )
      const s = await runTraining(config, { outDir: out, ...quiet })
      expect(s.status).toBe("complete")
      return join(out, s.runId)
    }
    const withSamples = await run(3)
    expect(samplesOf(withSamples).map((l) => l.episodes.length)).toEqual([3, 3, 3])
    expect(metricsWithoutPerf(withSamples)).toEqual(metricsWithoutPerf(await run(0)))
  }, 120_000)

  test("a resumed run cuts samples.jsonl back to its checkpoint: the same file as an uninterrupted run", async () => {
    const a = tmp(),
      c = tmp()
    const config = cfg({ steps: 8, P: 2, G: 2 }, { valSeeds: 4, evalEvery: 1, checkpointEvery: 4, evalSamples: 2 })
    const full = await runTraining(config, { outDir: a, ...quiet })
    const stopped = await runStoppedAfter(config, { outDir: c, ...quiet }, 6)
    expect(stopped.status).toBe("stopped")
    const dir = join(c, stopped.runId)
    // As if killed after the evaluation of a later step was appended but before its checkpoint, plus a torn line.
    const later = samplesOf(dir).at(-1)!
    appendFileSync(join(dir, SAMPLES_FILE), JSON.stringify({ ...later, step: 7 }) + '\n{"step": 8, "temp')
    const resumed = await runTraining(config, { outDir: c, ...quiet, resume: true })
    expect(resumed.status).toBe("complete")
    expect(samplesOf(dir).map((l) => l.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    expect(readFileSync(join(dir, SAMPLES_FILE), "utf8")).toBe(readFileSync(join(a, full.runId, SAMPLES_FILE), "utf8"))
    // --fresh starts the samples over.
    const again = await runTraining(config, { outDir: c, ...quiet, fresh: true })
    expect(samplesOf(join(c, again.runId)).map((l) => l.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
  })
})

const turn = (over: Partial<TurnRecord> = {}): TurnRecord => ({
  prompt: "lamp red",
  completion: { text: "lamp red go left </think> <answer> left </answer>", tokens: [1], logprobs: [0], rawLogprobs: [0] } as unknown as TurnRecord["completion"],
  reasoning: "lamp red go left",
  action: "left",
  formatValid: true,
  actionValid: true,
  reward: 0,
  grade: { factAccuracy: 1, consistency: 1 },
  facts: ["lamp red"],
  ...over
})
const trajectory = (turns: TurnRecord[]): Trajectory => ({ group: 0, index: 0, seed: 5, turns, ret: 0, success: false, terminated: false, truncated: false })

describe("samples are bounded", () => {
  test("a text field is cut to its cap with a marker naming the original length", () => {
    expect(truncateText("short")).toBe("short")
    const long = "x".repeat(10_000)
    const t = truncateText(long)
    expect(t.length).toBeLessThanOrEqual(FIELD_MAX_CHARS)
    expect(t).toEndWith("…[truncated: 10000 chars]")
    // A surrogate pair at the cut is not split.
    const emoji = "😀".repeat(3_000)
    const e = truncateText(emoji, 101)
    expect(e.length).toBeLessThanOrEqual(101)
    expect(() => encodeURIComponent(e)).not.toThrow()
  })

  test("an episode stays within EPISODE_MAX_CHARS: shorter fields first, then turns left out from the end", () => {
    const huge = "<think> " + "y".repeat(50_000)
    const one = sampleEpisode(trajectory([turn({ prompt: huge, reasoning: huge })]))
    expect(JSON.stringify(one).length).toBeLessThanOrEqual(EPISODE_MAX_CHARS)
    expect(one.turns).toHaveLength(1)
    expect(one.turns[0]!.prompt).toContain("truncated: 50008 chars")
    const many = sampleEpisode(trajectory(Array.from({ length: 40 }, () => turn({ prompt: "p".repeat(300) }))))
    expect(JSON.stringify(many).length).toBeLessThanOrEqual(EPISODE_MAX_CHARS)
    expect(many.turns.length + many.omittedTurns!).toBe(40)
    expect(many.omittedTurns!).toBeGreaterThan(0)
    // A short episode is kept whole; an unparsed response is kept raw (reasoning and action are empty then).
    const bad = sampleEpisode(trajectory([turn({ formatValid: false, reasoning: "", action: "", grade: undefined, completion: { text: "no tags" } as TurnRecord["completion"] })]))
    expect(bad.omittedTurns).toBeUndefined()
    expect(bad.turns[0]).toMatchObject({ response: "no tags", factAccuracy: null, consistency: null })
  })
})

describe("reading samples.jsonl (someone else's file)", () => {
  const line = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      step: 0,
      temperature: 0.5,
      episodes: [{ seed: 1, success: true, return: 1, turns: [{ prompt: "p", reasoning: "r", action: "a", reward: 1, facts: ["f"], factAccuracy: 1, consistency: 1 }] }],
      ...over
    })

  test("a well-formed file reads; a torn last line is tolerated", () => {
    const p = join(tmp(), SAMPLES_FILE)
    writeFileSync(p, line() + "\n" + line({ step: 1 }).slice(0, 30))
    const r = Effect.runSync(readSamples(p))
    expect(r.lines.map((l) => l.step)).toEqual([0])
    expect(r.tornLastLine).toBe(true)
  })

  test("malformed, oversized or not a file: a FileFormatError naming the path and line", () => {
    const dir = tmp()
    const cases: Array<[string, string, RegExp]> = [
      ["bad-json", "{oops\n" + line() + "\n", /:1: not valid JSON/],
      ["wrong-type", line() + "\n" + line({ step: "1" }) + "\n", /:2: /],
      ["unknown-key", line({ extra: 1 }) + "\n", /:1: .*extra/],
      [
        "long-prompt",
        line({
          episodes: [
            { seed: 1, success: true, return: 1, turns: [{ prompt: "x".repeat(FIELD_MAX_CHARS + 1), reasoning: "", action: "", reward: 0, facts: null, factAccuracy: null, consistency: null }] }
          ]
        }) + "\n",
        /:1: /
      ],
      [
        "too-many-facts",
        line({ episodes: [{ seed: 1, success: true, return: 1, turns: [{ prompt: "", reasoning: "", action: "", reward: 0, facts: Array(65).fill("f"), factAccuracy: null, consistency: null }] }] }) +
          "\n",
        /:1: /
      ],
      ["nan-reward", line().replace('"reward":1', '"reward":"NaN"') + "\n", /:1: /]
    ]
    for (const [name, text, re] of cases) {
      const p = join(dir, `${name}.jsonl`)
      writeFileSync(p, text)
      const f = readFailure(p)
      expect(f._tag).toBe("FileFormatError")
      expect(f.message).toContain(p)
      expect(f.message).toMatch(re)
    }
    // Over the size bound (a sparse file: no disk is written): refused before it is read.
    const big = join(dir, "big.jsonl")
    const fd = openSync(big, "w")
    ftruncateSync(fd, MAX_SAMPLES_BYTES + 1)
    closeSync(fd)
    expect(readFailure(big).message).toMatch(/over the limit/)
    // A folder in place of the file.
    expect(readFailure(dir).message).toMatch(/not a regular file/)
  })
})
