/**
 * `leaderboard verify`: re-run K randomly chosen complete runs (our Rng, seeded) from their
 * recorded config.json in a temp folder, and check that every metrics line matches exactly.
 * Wall-clock metrics (perf/*, time/*) are left out of the comparison: they measure the
 * machine, not the result. Marks go to verify.json next to the runs; the leaderboard shows them.
 */
import { Effect } from "effect"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  canonicalJson,
  codeVersion,
  externalInputs,
  isComplete,
  listRunDirs,
  type MetricsLine,
  readJsonFile,
  readMetrics,
  readRun,
  Rng,
  runIdOf,
  runtimeInfo,
  type TrainFn,
  writeJsonAtomic
} from "../../core/host.ts"
import type { PluginInput } from "../../core/contracts/index.ts"
import { VerifyFile } from "./schema.ts"
import { DEFAULT_RERUN_BUDGET, overBudget, type RerunBudget } from "./rerun-budget.ts"

export { externalInputs }

export const isTimingMetric = (name: string): boolean => /^(perf|time|timing)\//.test(name)

const comparable = (l: MetricsLine): string => canonicalJson(Object.fromEntries(Object.entries(l).filter(([k]) => !isTimingMetric(k))))

export interface VerifyResult {
  readonly runId: string
  readonly ok: boolean
  readonly detail: string
  /** Not re-run: its config reads files or reaches URLs and external inputs were not allowed, or it is over the re-run budget. */
  readonly refused?: boolean
}

export interface VerifyOptions {
  /** Re-run configs that read files or reach URLs (they come from whoever wrote the results). */
  readonly allowExternal?: boolean
  /** The most one re-run may spend (default DEFAULT_RERUN_BUDGET): above it, refused. */
  readonly budget?: RerunBudget
}

/** First difference between two metric streams, or "" when equal. */
export const compareMetrics = (a: ReadonlyArray<MetricsLine>, b: ReadonlyArray<MetricsLine>): string => {
  if (a.length !== b.length) return `recorded ${a.length} metrics lines, re-run wrote ${b.length}`
  for (let i = 0; i < a.length; i++) {
    const x = comparable(a[i]!)
    const y = comparable(b[i]!)
    if (x !== y) {
      const ka = a[i]!
      const kb = b[i]!
      const key = [...new Set([...Object.keys(ka), ...Object.keys(kb)])].find((k) => !isTimingMetric(k) && ka[k] !== kb[k])
      return `line ${i + 1} (step ${ka.step}): ${key} recorded ${key ? ka[key] : "?"}, re-run ${key ? kb[key] : "?"}`
    }
  }
  return ""
}

type Notes = Readonly<Record<string, string>> | undefined

/** Select the recorded kernel backend and instruction set for a re-run; returns the undo. */
const useRecordedKernels = (notes: Notes): (() => void) => {
  const before = { kernels: process.env.RAGEN_KERNELS, isa: process.env.RAGEN_NATIVE_ISA }
  const kernels = notes?.kernels?.replace(/^tinylm:/, "")
  if (kernels === "native" || kernels === "wasm" || kernels === "js") {
    process.env.RAGEN_KERNELS = kernels
    if (kernels === "native" && notes?.kernelsIsa) process.env.RAGEN_NATIVE_ISA = notes.kernelsIsa
    else delete process.env.RAGEN_NATIVE_ISA
  }
  return () => {
    for (const [k, v] of [
      ["RAGEN_KERNELS", before.kernels],
      ["RAGEN_NATIVE_ISA", before.isa]
    ] as const) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
}

/** How the re-run's kernels differ from the recorded ones ("" when they are the same). */
export const kernelsMismatch = (recorded: Notes, now: Notes): string => {
  const r = `${recorded?.kernels ?? "?"} ${recorded?.kernelsIsa ?? ""}`.trim()
  const n = `${now?.kernels ?? "?"} ${now?.kernelsIsa ?? ""}`.trim()
  return recorded?.kernels === undefined || r === n ? "" : `recorded ${r}, here ${n}`
}

export const verifyRuns = (resultsDir: string, sample: number, seed: number, train: TrainFn, plugins: ReadonlyArray<PluginInput> = [], options: VerifyOptions = {}): Effect.Effect<VerifyResult[]> =>
  Effect.gen(function* () {
    const dirs = listRunDirs(resultsDir).filter(isComplete)
    const chosen = new Rng(seed).shuffle([...dirs]).slice(0, Math.max(0, sample))
    const results: VerifyResult[] = []
    for (const dir of chosen.sort()) {
      const rec = yield* Effect.result(readRun(dir))
      if (rec._tag === "Failure") {
        results.push({ runId: dir, ok: false, detail: rec.failure.message })
        continue
      }
      const { config, runId } = rec.success.config
      if (runIdOf(config).runId !== runId) {
        results.push({ runId, ok: false, detail: `config.json's runId ${runId} is not the hash of its config (${runIdOf(config).runId})` })
        continue
      }
      const external = options.allowExternal ? [] : externalInputs(config)
      if (external.length > 0) {
        results.push({
          runId,
          ok: false,
          refused: true,
          detail: `not re-run: its config reads files or reaches URLs (${external.join(", ")}); re-run it only if you trust these results, with --allow-external`
        })
        continue
      }
      const over = overBudget(config, options.budget ?? DEFAULT_RERUN_BUDGET)
      if (over) {
        results.push({ runId, ok: false, refused: true, detail: `not re-run: over the re-run budget: ${over}; raise the limit with the flag named if you mean to spend that` })
        continue
      }
      // Backends differ in float summation order: re-run on the recorded one (docs/kernels.md).
      const restore = useRecordedKernels(rec.success.config.runtime.notes)
      const tmp = mkdtempSync(join(tmpdir(), "ragen-verify-"))
      try {
        const outcome = yield* Effect.result(Effect.tryPromise(() => train(config, { outDir: tmp, plugins })))
        if (outcome._tag === "Failure") {
          results.push({ runId, ok: false, detail: `re-run failed: ${String((outcome.failure as Error)?.message ?? outcome.failure)}` })
          continue
        }
        const again = yield* Effect.result(readMetrics(join(tmp, runId, "metrics.jsonl")))
        if (again._tag === "Failure") {
          results.push({ runId, ok: false, detail: again.failure.message })
          continue
        }
        const diff = compareMetrics(rec.success.metrics.lines, again.success.lines)
        const mismatch = kernelsMismatch(rec.success.config.runtime.notes, runtimeInfo().notes)
        results.push({
          runId,
          ok: diff === "",
          detail:
            diff === ""
              ? `${again.success.lines.length} metrics lines identical`
              : mismatch
                ? `${diff} (this machine could not run the recorded kernels: ${mismatch}; numbers differ in float summation order)`
                : diff
        })
      } finally {
        restore()
        rmSync(tmp, { recursive: true, force: true })
      }
    }
    // Merge into verify.json: earlier marks of runs not re-checked now are kept.
    const path = join(resultsDir, "verify.json")
    let prev: VerifyFile["runs"] = {}
    if (existsSync(path)) {
      const old = yield* Effect.result(readJsonFile(VerifyFile, path))
      if (old._tag === "Success") prev = old.success.runs
    }
    const runs: Record<string, VerifyFile["runs"][string]> = { ...prev }
    const now = new Date().toISOString()
    for (const r of results) {
      if (r.refused) continue // not checked: no mark either way
      runs[r.runId] = { ok: r.ok, checkedAt: now, codeVersion: codeVersion(), detail: r.detail }
    }
    writeJsonAtomic(path, { format: 1, runs } satisfies VerifyFile)
    return results
  })
