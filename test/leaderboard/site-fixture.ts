/**
 * A whole site for the page tests: the user's runs (seven seeds where one filter separates above
 * none and one below, with a noise floor), trained runs of the test bandit that kept episode samples
 * (none, random and the noise floor on one seed: side-by-side pages), and a reference set beside them.
 */
import { Effect } from "effect"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { runTraining } from "../../core/train/run.ts"
import { collectRuns } from "../../plugins/leaderboard/build.ts"
import { type SiteWritten, writeSite } from "../../plugins/leaderboard/site.ts"
import { cfg, testPlugin } from "../train/fixtures.ts"
import { type FakeRun, sevenSeedRuns, standardRuns, writeRuns } from "./fixtures.ts"

const quiet = { plugins: [...builtinPlugins, testPlugin], onLog: () => {} }

export interface SiteFixture {
  readonly site: SiteWritten
  readonly siteDir: string
  /** Run ids of the reference set. */
  readonly reference: ReadonlyArray<string>
}

export const buildSiteFixture = async (base: string): Promise<SiteFixture> => {
  const mine = join(base, "results", "mine")
  const ref = join(base, "results", "ref")
  // Filter ids as the trained runs write them (filters/<name>), so that each shows by its local name.
  // The random cell keeps a fixed count, so it is no matched control of top-p (plugins/leaderboard/controls.ts)
  // and the page's family stays the three comparisons with none, which 7 seeds can pass (2/2^7 ≤ 0.05/3).
  const ids = (r: FakeRun): FakeRun => ({
    ...r,
    algo: "algorithms/grpo",
    filter: `filters/${r.filter}`,
    ...(r.filter === "top-p" ? { filterOptions: { p: 0.9 } } : r.filter === "random" ? { filterOptions: { like: "top-p", count: 4 } } : {})
  })
  const floor = [1, 2, 3, 4, 5, 6, 7].map((seed) => ({ env: "frozenlake", filter: "none", seed, peak: 0.4 + 0.02 * seed + (seed % 2 ? 0.01 : -0.01), samplingStream: 1 }))
  writeRuns(mine, [...sevenSeedRuns, ...floor].map(ids))
  const train = { valSeeds: 4, evalEvery: 1, evalSamples: 2 }
  for (const [filter, stream] of [
    ["none", 0],
    ["random", 0],
    ["none", 1]
  ] as const) {
    await runTraining(cfg({ steps: 2, P: 2, G: 2, filter }, { ...train, samplingStream: stream }), { outDir: mine, ...quiet })
  }
  writeRuns(ref, standardRuns.filter((r) => r.env === "sokoban").map(ids))
  const siteDir = join(base, "site")
  const collected = Effect.gen(function* () {
    const a = yield* collectRuns([mine], siteDir)
    const b = yield* collectRuns([ref], siteDir)
    return { runs: [...a.runs, ...b.runs], problems: [...a.problems, ...b.problems], sources: [...a.sources, ...b.sources], reference: b.runs.map((r) => r.run.config.runId) }
  })
  const site = await Effect.runPromise(writeSite([mine], siteDir, collected))
  return { site, siteDir, reference: (await Effect.runPromise(collectRuns([ref], siteDir))).runs.map((r) => r.run.config.runId) }
}
