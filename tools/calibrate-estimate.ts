/**
 * Calibrate core/sweep/estimate.ts from finished runs: per env (per warm start for those with
 * their own figures, BY_WARM_START), the median training step
 * (perf/step_seconds, scaled to P·G = 64; diagnostics steps included, as in a run) and the
 * median seconds per validation episode (what is left of a run's wall time after its steps and
 * the fixed overhead, over its validation episodes); then the estimate of each run against its
 * recorded wall time, in total and per env.
 *
 *   node_modules/.bin/bun tools/calibrate-estimate.ts results/standard
 */
import { Effect } from "effect"
import { costKey, estimateRunSeconds } from "../core/sweep/estimate.ts"
import { collectInputs } from "../plugins/leaderboard/collect.ts"

const dirs = process.argv.slice(2)
if (dirs.length === 0) {
  console.error("usage: bun tools/calibrate-estimate.ts <results-dir...>")
  process.exit(2)
}
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const runs = (await Effect.runPromise(collectInputs(dirs, "."))).runs.map((r) => r.run).filter((r) => r.summary?.status === "complete")
const byEnv = new Map<string, typeof runs>()
for (const r of runs) {
  // Runs with their own cost figures (headroom starts, WebShop v2) are calibrated apart.
  const env = costKey(r.config.config) ?? r.config.config.env.replace(/^.*\//, "").replace(/-v\d+$/, "")
  byEnv.set(env, [...(byEnv.get(env) ?? []), r])
}
let est = 0,
  act = 0
console.log("| env or warm start | runs | step s (P·G=64) | val episode s | estimate / recorded wall |")
console.log("|---|---|---|---|---|")
for (const [env, rs] of [...byEnv].sort()) {
  const steps: number[] = []
  const perVal: number[] = []
  let e = 0,
    a = 0
  for (const r of rs) {
    const c = r.config.config
    const t = c.train as Record<string, unknown>
    const lines = r.metrics.lines.filter((l) => typeof l["perf/step_seconds"] === "number")
    const stepSum = lines.reduce((s, l) => s + (l["perf/step_seconds"] as number), 0)
    for (const l of lines) steps.push(((l["perf/step_seconds"] as number) * 64) / (c.P * c.G))
    const evals = r.metrics.lines.filter((l) => typeof l["val/success@0.5"] === "number").length
    const temps = Array.isArray(t.valTemperatures) ? t.valTemperatures.length : 2
    const episodes = evals * temps * (t.valSeeds as number)
    if (episodes > 0) perVal.push(Math.max(0, r.summary!.wallSeconds - stepSum) / episodes)
    e += estimateRunSeconds(c)
    a += r.summary!.wallSeconds
  }
  est += e
  act += a
  console.log(`| ${env} | ${rs.length} | ${median(steps).toFixed(3)} | ${median(perVal).toFixed(4)} | ${(e / a).toFixed(2)} |`)
}
console.log(`\nall: estimate ${est.toFixed(0)} s, recorded ${act.toFixed(0)} s of run time: ratio ${(est / act).toFixed(2)}`)
