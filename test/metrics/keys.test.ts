/**
 * The metric vocabulary (core/metrics/keys.ts) against what the code really emits and against
 * docs/metrics.md. The emitted keys come from short real trainings that between them switch on
 * everything that logs: GRPO/PPO/DAPO, MI diagnostics (with the probe), validation at two
 * temperatures, gradient decomposition, KL, filters with their own stats and dynamic sampling,
 * and an SFT warm start of the real tinylm.
 */
import { describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { docPath, keysInDoc, renderMetricsDoc, spliceMetricsDoc } from "../../core/metrics/doc.ts"
import { isPattern, keyRegExp, matchMetricKey, metricKeys, unknownMetricKeys } from "../../core/metrics/keys.ts"
import { CollapseThresholds } from "../../core/diagnostics/collapse.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { SUCCESS_METRIC } from "../../core/contracts/results.ts"
import { runTraining } from "../../core/train/run.ts"
import { CHART_METRICS } from "../../plugins/leaderboard/build.ts"
import { cfg, testPlugin } from "../train/fixtures.ts"

const quiet = { plugins: [...builtinPlugins, testPlugin], onLog: () => {} }

/** Keys of every line of a run's metrics.jsonl. */
const keysOfRun = async (config: ReturnType<typeof cfg>): Promise<string[]> => {
  const out = mkdtempSync(join(tmpdir(), "ragen-metric-keys-"))
  try {
    const s = await runTraining(config, { outDir: out, ...quiet })
    expect(s.status).toBe("complete")
    const lines = readFileSync(join(out, s.runId, "metrics.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    return [...new Set(lines.flatMap((l) => Object.keys(l)))]
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

const short = { valSeeds: 4, valTemperatures: [0.5, 1.0], evalEvery: 2, diagEvery: 2, diagRows: 8, checkpointEvery: 0, minibatches: 2 }

describe("metric keys", () => {
  test("patterns match the keys the code builds from them, and only those", () => {
    expect(matchMetricKey("val/success@0.5")?.key).toBe("val/success@<T>")
    expect(matchMetricKey("val/fact_accuracy@1.0")?.key).toBe("val/fact_accuracy@<T>")
    expect(matchMetricKey("mi/probe_first_turn/mi_est")?.key).toBe("mi/<scope>/mi_est")
    expect(matchMetricKey("filter/top-p/threshold")?.key).toBe("filter/<filter>/<stat>")
    expect(matchMetricKey("grad/task_q6")?.key).toBe("grad/task_q<k>")
    expect(matchMetricKey("filter/kept_ratio")?.key).toBe("filter/kept_ratio")
    for (const bad of ["val/success@", "val/success", "mi/elsewhere/mi_est", "grad/task_q0", "filter/a/b/c", "train/sucess", "losses/polcy"]) {
      expect(matchMetricKey(bad)).toBeUndefined()
    }
    expect(() => keyRegExp("x/<nope>")).toThrow("unknown placeholder <nope>")
  })

  test("every key is listed once", () => {
    const keys = metricKeys.map((d) => d.key)
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([])
    // No pattern shadows an exact key (an exact key would then be listed twice in effect).
    for (const k of keys.filter((k) => !isPattern(k))) expect(matchMetricKey(k)?.key).toBe(k)
  })

  test("the keys that readers look up (leaderboard charts, collapse check defaults, the headline metric) are in the vocabulary", () => {
    // A renamed key must fail here, not publish empty charts (STYLE.md: BALROG's zeros).
    const collapse = decodeSync(CollapseThresholds, {})
    if (!collapse.ok) throw new Error(collapse.message)
    const c = collapse.value
    const read = [SUCCESS_METRIC, ...CHART_METRICS.map((m) => m.metric), ...c.miMetrics, c.entropyMetric, c.factMetric, c.rvMetric, c.emptyMetric, c.valMetric]
    expect(unknownMetricKeys(read)).toEqual([])
  })

  test("docs/metrics.md lists exactly the module's keys, and its tables are the rendered ones", () => {
    const text = readFileSync(docPath, "utf8")
    const doc = keysInDoc(text)
    const mod = metricKeys.map((d) => d.key)
    // Named differences first, so a failure says which key to add where.
    expect({ inDocNotInModule: doc.filter((k) => !mod.includes(k)), inModuleNotInDoc: mod.filter((k) => !doc.includes(k)) }).toEqual({ inDocNotInModule: [], inModuleNotInDoc: [] })
    if (spliceMetricsDoc(text, renderMetricsDoc()) !== text) {
      throw new Error("docs/metrics.md's generated tables are stale: run node_modules/.bin/bun core/metrics/doc.ts --write")
    }
  })

  test("short real trainings emit only known keys, and every known key is emitted", async () => {
    const runs = [
      // GRPO + KL, dynamic sampling through the filter, MI with the probe, gradient decomposition.
      cfg({ algo: "grpo", filter: "dapo-dynamic", filterOptions: { maxDraws: 3 }, P: 4, G: 4, steps: 4 }, { ...short, klCoef: 0.01, gradDecompEvery: 2, gradDecompBuckets: 2 }),
      // PPO (value loss, dual clip) with top-p's own stats.
      cfg({ algo: "ppo", filter: "top-p", filterOptions: { p: 0.9 }, P: 4, G: 4, steps: 2 }, short),
      // DAPO's own dynamic sampling, and the random filter's target.
      cfg({ algo: "dapo", filter: "random", P: 4, G: 4, steps: 2 }, short),
      // An SFT warm start of the real embedded policy (sft/*, perf/sft_seconds).
      cfg({ algo: "grpo", policy: "tinylm", policyOptions: { ctx: 32, d: 8, layers: 1, heads: 1 }, P: 2, G: 2, steps: 1 }, { ...short, diagEvery: 0, sftSteps: 2, sftTurns: 32, sftBatch: 8 })
    ]
    const emitted = new Set<string>()
    for (const c of runs) for (const k of await keysOfRun(c)) emitted.add(k)
    expect(unknownMetricKeys(emitted)).toEqual([])
    const re = metricKeys.map((d) => ({ key: d.key, re: keyRegExp(d.key) }))
    const neverEmitted = re.filter((d) => ![...emitted].some((k) => d.re.test(k))).map((d) => d.key)
    expect(neverEmitted).toEqual([])
  }, 120000)
})
