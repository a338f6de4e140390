/**
 * The filter and diagnostics commands end to end in a child process: `filter apply` (built-in
 * and an example plugin), `mi`, and `analyze` on run folders written with the results store.
 */
import { describe, expect, test } from "bun:test"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { openRun } from "../../core/results/store.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import { root, runCli } from "../helpers/cli.ts"

/** Each test spawns a few CLI processes: generous under load on the shared 2 cores. */
const CLI_TIMEOUT = 60_000

const tmp = mkdtempSync(join(tmpdir(), "ragen-filter-mi-"))
const file = (name: string, value: unknown): string => {
  const p = join(tmp, name)
  writeFileSync(p, typeof value === "string" ? value : JSON.stringify(value))
  return p
}
const json = (args: string[]) => {
  const r = runCli(args)
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout)
}
const expectUserError = (args: string[], ...needles: string[]) => {
  const r = runCli(args)
  expect(r.code).toBe(2)
  expect(r.stderr).toContain("error:")
  for (const n of needles) expect(r.stderr).toContain(n)
  expect(r.stderr).not.toContain("    at ")
}

// Groups whose unbiased std is 4, 3, 2, 1 (returns [0, s·√2]): docs/design.md §5's worked example.
const worked = file("worked.json", { groups: [4, 3, 2, 1].map((s) => [0, s * Math.SQRT2]) })

describe("filter apply", () => {
  test(
    "top-p on the worked example [4,3,2,1], p = 0.6 keeps {4, 3}",
    () => {
      const out = json(["filter", "apply", "--filter", "top-p", "--filter-value", "0.6", worked])
      expect(out.filter).toBe("filters/top-p")
      expect(out.options).toEqual({ p: 0.6, eps: 0.01, metric: "std", includeZero: false })
      expect(out.keptGroups).toEqual([0, 1])
      expect(out.keptTrajectories).toEqual([[0, 1], [0, 1], [], []])
      expect(out.stats["filter/kept_groups"]).toBe(2)
      expect(out.stats["filter/kept_ratio"]).toBe(0.5)
      expect(out.stats["filter/rv_mean"]).toBeCloseTo(2.5, 12)
      expect(out.stats["filter/top-p/threshold"]).toBeCloseTo(0.6 * 10 - 0.01, 12)
    },
    CLI_TIMEOUT
  )

  test(
    "top-p 1.0 with includeZero false drops only the zero-spread groups (Table 9's baseline)",
    () => {
      const g = file("zeros.json", {
        groups: [
          [0, 1],
          [1, 1],
          [0, 2],
          [3, 3]
        ]
      })
      const out = json(["filter", "apply", "--filter", "top-p", "--filter-value", "1", "--option", "includeZero=false", g])
      expect(out.keptGroups).toEqual([0, 2])
      expect(out.stats["filter/zero_variance_groups"]).toBe(2)
      expect(out.stats["filter/dropped_nonzero"]).toBe(0)
      const all = json(["filter", "apply", "--filter", "top-p", "--filter-value", "1", "--option", "includeZero=true", g])
      expect(all.keptGroups).toEqual([0, 1, 2, 3])
    },
    CLI_TIMEOUT
  )

  test(
    "the random control matches a plugin filter's kept count",
    () => {
      const spread = join(root, "examples", "filters", "spread-filter.ts")
      const out = json(["filter", "apply", "--plugin", spread, "--filter", "random", "--option", "like=spread/min-range", "--option", "minRange=4", "--seed", "1", worked])
      expect(out.keptGroups.length).toBe(2)
      expect(out.stats["filter/random/target"]).toBe(2)
      expectUserError(["filter", "apply", "--filter", "random", "--option", "like=nope", worked], `like "nope"`, "unknown filter")
    },
    CLI_TIMEOUT
  )

  test(
    "bad input exits 2 with a message naming the field",
    () => {
      expectUserError(["filter", "apply", "--filter", "top-p", file("bad-type.json", { groups: [[1, "x"]] })], 'groups[0][1]: got "x"; expected a number')
      expectUserError(["filter", "apply", "--filter", "top-p", file("bad-key.json", { group: [[1]] })], "group: unknown option; did you mean groups?")
      expectUserError(["filter", "apply", "--filter", "top-p", file("bad-empty.json", { groups: [[1, 2], []] })], "group 1 has no trajectories")
      expectUserError(["filter", "apply", "--filter", "top-p", file("bad-json.json", "{groups: ")], "not valid JSON")
      expectUserError(["filter", "apply", "--filter", "top-p", "--option", "q=1", worked], `--option q: unknown option; did you mean p?`)
      expectUserError(["filter", "apply", "--filter", "nope", worked], `unknown filter "nope"`, "filters/top-p")
    },
    CLI_TIMEOUT
  )

  test(
    "an example plugin registers with --plugin and runs",
    () => {
      const spread = join(root, "examples", "filters", "spread-filter.ts")
      const out = json(["filter", "apply", "--plugin", spread, "--filter", "spread/min-range", "--filter-value", "4", worked])
      // Ranges are s·√2 = 5.66, 4.24, 2.83, 1.41: ≥ 4 keeps the first two.
      expect(out.filter).toBe("spread/min-range")
      expect(out.keptGroups).toEqual([0, 1])
      expect(out.stats["filter/min-range/mean_range"]).toBeCloseTo(2.5 * Math.SQRT2, 12)
      const extremes = join(root, "examples", "filters", "extremes-filter.ts")
      const g = file("traj.json", {
        groups: [
          [1, 0, 3, 2, 3],
          [1, 1, 1],
          [5, -1, 2, -1]
        ]
      })
      const t = json(["filter", "apply", "--plugin", extremes, "--filter", "best-worst", g])
      expect(t.keptTrajectories).toEqual([[1, 2], [], [0, 1]])
      expect(t.keptGroups).toEqual([0, 2])
      expectUserError(["filter", "apply", "--plugin", extremes, "--filter", "best-worst", "--option", "k=0", g], "best-worst", "k")
    },
    CLI_TIMEOUT
  )
})

describe("mi", () => {
  test(
    "separable and collapsed matrices through the same miProxies as training",
    () => {
      const sep = json([
        "mi",
        file("sep.json", {
          tokenMean: [
            [0, -10],
            [-10, 0]
          ],
          sum: [
            [0, -50],
            [-50, 0]
          ],
          column: [0, 1]
        })
      ])
      expect(sep.retrievalAcc).toBe(1)
      expect(sep.chance).toBe(0.5)
      // matched 0, marginal = log((1 + e^-10)/2)
      expect(sep.miEst).toBeCloseTo(Math.log(2) - Math.log1p(Math.exp(-10)), 12)
      expect(sep.miSeqEst).toBeCloseTo(Math.log(2) - Math.log1p(Math.exp(-50)), 12)
      expect(sep.miUpperBound).toBeCloseTo(Math.log(2), 14)
      const flat = json([
        "mi",
        file("flat.json", {
          tokenMean: [
            [-3, -3, -3],
            [-3, -3, -3]
          ],
          sum: [
            [-9, -9, -9],
            [-9, -9, -9]
          ],
          column: [0, 2]
        }),
        "--prefix",
        "mi/first_turn"
      ])
      expect(flat.retrievalAcc).toBeCloseTo(1 / 3, 14)
      expect(flat.miEst).toBeCloseTo(0, 14)
      expect(flat.hZGivenX).toBe(3)
      expect(flat.metrics["mi/first_turn/retrieval_acc"]).toBeCloseTo(1 / 3, 14)
    },
    CLI_TIMEOUT
  )

  test(
    "a malformed matrix exits 2 naming the field",
    () => {
      expectUserError(["mi", file("mi-col.json", { tokenMean: [[0, -1]], sum: [[0, -1]], column: [2] })], "column[0] = 2")
      expectUserError(
        [
          "mi",
          file("mi-rows.json", {
            tokenMean: [[0, -1], [0]],
            sum: [
              [0, -1],
              [0, -1]
            ],
            column: [0, 1]
          })
        ],
        "tokenMean[1]"
      )
    },
    CLI_TIMEOUT
  )
})

describe("analyze", () => {
  const results = join(tmp, "results")
  // mi_est at step 1 ranks [1,2,3,4]; targets rank [1,3,2,4] ⇒ ρ = 1 − 6·2/(4·15) = 0.8.
  // fact accuracy [.5,.5,.9,.9] (ties) ⇒ ρ = 2/√20. At step 5 mi_est is reversed ⇒ ρ = −0.8.
  const targets = [0.1, 0.3, 0.2, 0.4]
  const fact = [0.5, 0.5, 0.9, 0.9]
  const config = (seed: number) => {
    const r = decodeSync(RunConfig, { env: "frozenlake", seed })
    if (!r.ok) throw new Error(r.message)
    return r.value
  }
  for (let i = 0; i < 4; i++) {
    const run = openRun(results, config(i + 1))
    run.appendMetrics({ step: 0, "val/success@0.5": 0.05 })
    run.appendMetrics({ step: 1, "mi/first_turn/mi_est": i + 1, "reasoning/fact_accuracy": fact[i]!, "train/entropy": 1, "train/success": targets[i]! })
    run.appendMetrics({ step: 2, "train/entropy": 1 + i })
    run.appendMetrics({ step: 5, "mi/first_turn/mi_est": 10 - i, "reasoning/fact_accuracy": fact[i]! })
    run.writeSummary({ status: "complete", stepsDone: 5, wallSeconds: 1, finalValSuccess: targets[i]!, peakValSuccess: targets[i]!, final: {} })
  }
  const unfinished = openRun(results, config(98))
  unfinished.appendMetrics({ step: 1, "mi/first_turn/mi_est": 100 })
  const noVal = openRun(results, config(99))
  noVal.appendMetrics({ step: 1, "mi/first_turn/mi_est": -100 })
  noVal.writeSummary({ status: "failed", stepsDone: 1, wallSeconds: 1, finalValSuccess: null, peakValSuccess: null, final: {} })

  const rowOf = (out: { rows: Array<{ metric: string }> }, m: string) => out.rows.find((r) => r.metric === m) as any

  test(
    "Spearman ρ of each diagnostic at its first logged step, with n and a bootstrap interval",
    () => {
      const out = json(["analyze", results, "--json"])
      expect(out.target).toBe("summary.finalValSuccess")
      expect(out.runs).toBe(4)
      expect(out.skipped.map((s: { reason: string }) => s.reason).sort()).toEqual(["no final validation success", "no summary.json (unfinished run)"])
      // Diagnostics only by default: train/success is not one.
      expect(out.rows.map((r: { metric: string }) => r.metric)).toEqual(["mi/first_turn/mi_est", "reasoning/fact_accuracy", "train/entropy"])
      const mi = rowOf(out, "mi/first_turn/mi_est")
      expect(mi.n).toBe(4)
      expect(mi.rho).toBeCloseTo(0.8, 5)
      expect(mi.stepMin).toBe(1)
      expect(mi.lo).toBeLessThanOrEqual(mi.rho)
      expect(mi.hi).toBeGreaterThanOrEqual(mi.rho)
      expect(rowOf(out, "reasoning/fact_accuracy").rho).toBeCloseTo(2 / Math.sqrt(20), 5)
      // Constant at its first logged step: ρ undefined, printed as null.
      expect(rowOf(out, "train/entropy").rho).toBeNull()
      // Seeded bootstrap: the same command gives the same interval.
      expect(json(["analyze", results, "--json"])).toEqual(out)
    },
    CLI_TIMEOUT
  )

  test(
    "--step, --metric and the table",
    () => {
      const at5 = json(["analyze", results, "--json", "--step", "5"])
      expect(rowOf(at5, "mi/first_turn/mi_est").rho).toBeCloseTo(-0.8, 5)
      expect(rowOf(at5, "mi/first_turn/mi_est").stepMin).toBe(5)
      // train/entropy is logged at steps 1 and 2 only: at step 5 its latest value (step 2) counts.
      expect(rowOf(at5, "train/entropy").rho).toBeCloseTo(0.8, 5)
      expect(rowOf(at5, "train/entropy").stepMax).toBe(2)
      const picked = json(["analyze", results, "--json", "--metric", "train/success"])
      expect(picked.rows.map((r: { metric: string }) => r.metric)).toEqual(["train/success"])
      expect(picked.rows[0].rho).toBeCloseTo(1, 12)
      const t = runCli(["analyze", results])
      expect(t.code).toBe(0)
      expect(t.stdout).toContain("4 runs")
      expect(t.stdout).toMatch(/mi\/first_turn\/mi_est\s+1\s+4\s+\+0\.800\s+\[/)
    },
    CLI_TIMEOUT
  )

  test(
    "clear errors: no runs, unknown metric, bad step",
    () => {
      const empty = mkdtempSync(join(tmpdir(), "ragen-empty-"))
      expectUserError(["analyze", empty], "no runs found", "config.json")
      expectUserError(["analyze", join(tmp, "missing")], "does not exist")
      expectUserError(["analyze"], "at least one results folder")
      expectUserError(["analyze", results, "--metric", "mi/nope"], `unknown metric "mi/nope"`, "known metrics:", "mi/first_turn/mi_est")
      expectUserError(["analyze", results, "--step", "x"], "--step")
    },
    CLI_TIMEOUT
  )
})
