/**
 * The StarPO trainer loop (docs/design.md §3), read top to bottom like cleanrl's ppo.py:
 *
 *   for step in 1..steps:
 *     rollout P seeds × G trajectories          (rollout.ts)
 *     diagnostics on the pre-filter batch       (diagnose-step.ts: MI proxies, gradient decomposition)
 *     filter, with dynamic-sampling redraws     (filtering.ts)
 *     advantages and minibatch updates          (update.ts)
 *     validation every evalEvery steps          (eval.ts)
 *     one metrics line; checkpoint every checkpointEvery steps
 *
 * The warm start is warm-start.ts, the run folder and resume run-folder.ts. The loop is an Effect:
 * each step runs uninterruptibly and the loop stops between steps when interrupted (Ctrl-C, a
 * sweep's stop), saving a checkpoint and a "stopped" summary. User mistakes are typed failures;
 * a bug is a defect: its stack goes to the run's error.log and the run is summarised "failed".
 */
import { Cause, Effect, Exit, Fiber } from "effect"
import { appendFileSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { collapseAnnouncement, type CollapseCheck, collapseCheck } from "../diagnostics/collapse.ts"
import type { MiEma } from "../diagnostics/mi.ts"
import { attemptPromise, attemptSync, isUserError, type UserError } from "../errors.ts"
import type { SinkBinding } from "../metrics/fanout.ts"
import type { MetricsLine, RunSummary } from "../contracts/results.ts"
import type { SamplesLine } from "../schema/samples.ts"
import { ResultsStore, Scorer } from "../services.ts"
import { saveCheckpoint, type TrainerState } from "./checkpoint.ts"
import { NonFiniteUpdate, type TrainContext } from "./context.ts"
import { gradDecompStep, miDiagnostics } from "./diagnose-step.ts"
import { tempLabel, validate } from "./eval.ts"
import { filterStep } from "./filtering.ts"
import { samplingRng, trainSlotSeeds } from "./instances.ts"
import { rollout, rolloutStats } from "./rollout.ts"
import { type OpenedRun, openRunFolder } from "./run-folder.ts"
import { appendSamples } from "../results/samples.ts"
import type { RunHandle } from "../results/store.ts"
import type { TrainSetup } from "./setup.ts"
import { update } from "./update.ts"
import { initialPolicy, type SftReport, sftMetrics } from "./warm-start.ts"

export interface RunOptions {
  readonly outDir: string
  readonly onProgress?: (p: { step: number; steps: number; metrics: Record<string, number | null> }) => void
  readonly onLog?: (line: string) => void
  /** Aborting it interrupts the loop between steps (the run is saved and summarised "stopped"). */
  readonly signal?: AbortSignal
  readonly resume?: boolean
  readonly fresh?: boolean
  /** Metric sinks besides metrics.jsonl. */
  readonly sinks?: ReadonlyArray<SinkBinding>
  readonly resolveFilter: TrainContext["resolveFilter"]
}

/** One training step: rollout, diagnostics, filter, update; returns its metrics line. */
const trainStep = async (c: TrainContext, step: number): Promise<Record<string, number>> => {
  const { s, policy } = c
  const { config, opts } = s
  const tStep = performance.now()
  const m: Record<string, number> = { step }

  // Rollout: P training seeds (core/train/instances.ts) × G trajectories.
  const batch = await rollout(policy, s.rollout, trainSlotSeeds(s, step, 0, 1), config.G, samplingRng(s, "rollout", step, 0))
  for (const [k, v] of Object.entries(rolloutStats(batch))) m[k === "fact_accuracy" || k === "consistency" ? `reasoning/${k}` : `train/${k}`] = v
  let lpSum = 0,
    lpN = 0
  for (const t of batch.trajectories) for (const u of t.turns) for (const x of u.completion.rawLogprobs) (lpSum += x), lpN++
  m["rollout/neg_logprob"] = lpN > 0 ? -lpSum / lpN : 0
  const tRollout = performance.now()

  // Diagnostics on the pre-filter batch (and the fixed validation probe).
  if (opts.diagEvery > 0 && (step === 1 || step % opts.diagEvery === 0)) {
    Object.assign(m, await miDiagnostics(c, batch, "mi/", step, ["first-turn", "trajectory"]))
    const probeSeeds = Array.from({ length: config.P }, (_, i) => opts.valSeedStart + i)
    const probe = await rollout(policy, { ...s.rollout, maxTurns: 1 }, probeSeeds, config.G, samplingRng(s, "probe", step), "validation")
    Object.assign(m, await miDiagnostics(c, probe, "mi/probe_", step, ["first-turn"]))
  }
  if (opts.gradDecompEvery > 0 && step % opts.gradDecompEvery === 0) Object.assign(m, await gradDecompStep(c, batch))
  const diagSeconds = (performance.now() - tRollout) / 1000

  // Filter (with redraws when the algorithm or the filter samples dynamically), then update.
  const filtered = await filterStep(c, batch, step)
  Object.assign(m, filtered.metrics)
  const tUpdate = performance.now()
  const unfilteredTurns = batch.trajectories.reduce((a, t) => a + t.turns.filter((u) => u.completion.tokens.length > 0).length, 0)
  Object.assign(m, await update(c, filtered.kept, step, unfilteredTurns))

  const now = performance.now()
  const sampleSeconds = batch.sampleSeconds + filtered.extraSampleSeconds
  m["charts/lr"] = config.lr
  m["perf/step_seconds"] = (now - tStep) / 1000
  m["perf/rollout_seconds"] = (tRollout - tStep) / 1000
  m["perf/diag_seconds"] = diagSeconds
  m["perf/update_seconds"] = (now - tUpdate) / 1000
  // The step's budget, all draws included (the leaderboard sums them per run: equal budgets made visible).
  m["budget/rollouts"] = batch.trajectories.length + filtered.extraRollouts
  m["budget/env_steps"] = batch.trajectories.reduce((a, t) => a + t.turns.length, 0) + filtered.extraEnvSteps
  m["budget/tokens"] = batch.tokens + filtered.extraTokens
  m["perf/tokens_per_second"] = sampleSeconds > 0 ? (batch.tokens + filtered.extraTokens) / sampleSeconds : 0
  return m
}

const lastValues = (lines: ReadonlyArray<MetricsLine>): Record<string, number | null> => {
  const out: Record<string, number | null> = {}
  for (const l of lines) Object.assign(out, l)
  return out
}

/** What the steps share: the run, its context, and the progress so far (step, lines, headline success). */
interface Loop {
  readonly s: TrainSetup
  readonly o: RunOptions
  readonly run: RunHandle
  readonly c: TrainContext
  readonly log: (line: string) => void
  readonly t0: number
  /** Wall seconds of the earlier sessions of a resumed run. */
  readonly priorSeconds: number
  /** The metric whose final and peak the summary reports. */
  readonly headline: string
  readonly lines: MetricsLine[]
  readonly sft: SftReport | undefined
  step: number
  peakValSuccess: number | null
  finalValSuccess: number | null
}

/** One metrics line: written, kept, its headline success noted, the progress reported. */
const emitLine = (L: Loop, m: Record<string, number>): void => {
  L.run.appendMetrics(m)
  L.lines.push(m)
  const v = m[L.headline]
  if (v !== undefined) {
    L.finalValSuccess = v
    L.peakValSuccess = L.peakValSuccess === null ? v : Math.max(L.peakValSuccess, v)
  }
  L.o.onProgress?.({ step: m.step ?? 0, steps: L.s.config.steps, metrics: m })
}

const snapshot = (L: Loop): TrainerState => ({
  step: L.step,
  wallSeconds: L.priorSeconds + (performance.now() - L.t0) / 1000,
  peakValSuccess: L.peakValSuccess,
  finalValSuccess: L.finalValSuccess,
  miEma: structuredClone(L.c.miEma)
})

const checkpoint = (L: Loop) => attemptPromise(() => saveCheckpoint(L.run.checkpointDir, L.c.policy, snapshot(L), L.s.opts.keepCheckpoints))

const finishRun = (L: Loop, status: RunSummary["status"], extra: { error?: string; earlyStop?: string } = {}): RunSummary => {
  const summary = { status, stepsDone: L.step, wallSeconds: snapshot(L).wallSeconds, finalValSuccess: L.finalValSuccess, peakValSuccess: L.peakValSuccess, final: lastValues(L.lines), ...extra }
  L.run.writeSummary(summary)
  return { format: 2 as const, runId: L.run.runId, ...summary } as RunSummary
}

/** The warm start (or the saved RL start of a resumed run); undefined when stopped during the SFT. */
const startPolicy = (s: TrainSetup, o: RunOptions, opened: OpenedRun, initialPath: string, log: Loop["log"]) =>
  Effect.gen(function* () {
    const { run, resumeFrom } = opened
    // The SFT watches the abort signal itself.
    const started = yield* attemptPromise(async () => {
      try {
        return await initialPolicy(s, o.outDir, log, o.signal, resumeFrom ? initialPath : s.opts.init)
      } catch (e) {
        if ((e as Error)?.name === "SftStopped") return undefined
        throw e
      }
    })
    if (!started) return undefined
    if (!resumeFrom) {
      // The policy chose its kernels when it was built: the record names the backend that runs.
      run.recordRuntime()
      mkdirSync(run.checkpointDir, { recursive: true })
      yield* attemptPromise(() => started.policy.save(initialPath))
    }
    // The reference policy for KL is the RL start (post-SFT / --init) snapshot.
    const ref = s.opts.klCoef > 0 ? yield* attemptPromise(() => started.policy.snapshot()) : undefined
    if (resumeFrom) {
      yield* attemptPromise(() => started.policy.load(resumeFrom.policyPath))
      log(`resume: from step ${resumeFrom.state.step} (${resumeFrom.policyPath})`)
    }
    return { ...started, ref }
  })

/** The steps from where the run stands to the last, each uninterruptible; validation, collapse checks, checkpoints. */
const runSteps = (L: Loop) =>
  Effect.gen(function* () {
    const { s, c } = L
    const { config, opts } = s
    // samples.jsonl: a few validation episodes per evaluation (core/train/samples.ts).
    const keepSamples = (line: SamplesLine) => appendSamples(L.run.dir, line)
    const validateAt = (step: number) => validate(c.policy, s.rollout, opts, (...l) => samplingRng(s, ...l), step, keepSamples)
    if (L.step === 0) emitLine(L, { step: 0, ...sftMetrics(L.sft), ...(yield* attemptPromise(() => validateAt(0))) })
    // The collapse warning is a function of the history, so a resumed run logs the same.
    let previous: CollapseCheck | undefined = L.lines.length > 0 ? collapseCheck(L.lines, opts.collapse) : undefined
    while (L.step < config.steps) {
      const next = L.step + 1
      const m = yield* Effect.uninterruptible(
        attemptPromise(async () => {
          const line = await trainStep(c, next)
          if (next === config.steps || (opts.evalEvery > 0 && next % opts.evalEvery === 0)) Object.assign(line, await validateAt(next))
          return line
        })
      )
      const check = collapseCheck([...L.lines, m], opts.collapse)
      m["collapse/warning"] = check.warning ? 1 : 0
      const announce = collapseAnnouncement(previous, check)
      if (announce) L.log(`step ${next}: ${announce}`)
      previous = check
      emitLine(L, m)
      L.step = next
      if (check.stop) {
        L.log(`step ${L.step}: early stop: ${check.stopReason}`)
        yield* checkpoint(L)
        return finishRun(L, "complete", { earlyStop: check.stopReason })
      }
      if (L.step === config.steps || (opts.checkpointEvery > 0 && L.step % opts.checkpointEvery === 0)) yield* checkpoint(L)
      yield* Effect.yieldNow
    }
    return finishRun(L, "complete")
  })

/** Run the steps in their own fiber so that an abort interrupts them between steps. */
const untilAborted = <A, E>(steps: Effect.Effect<A, E>, signal: AbortSignal | undefined) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(steps)
    const onAbort = () => Effect.runFork(Fiber.interrupt(fiber))
    if (signal?.aborted) onAbort()
    signal?.addEventListener("abort", onAbort, { once: true })
    const exit = yield* Fiber.await(fiber)
    signal?.removeEventListener("abort", onAbort)
    return exit
  })

/** How the steps ended, as the run's summary: stopped, failed on a non-finite update, a user error or a bug. */
const settle = (L: Loop, exit: Exit.Exit<RunSummary, UserError>): Effect.Effect<RunSummary, UserError> =>
  Effect.gen(function* () {
    if (Exit.isSuccess(exit)) return exit.value
    if (Cause.hasInterruptsOnly(exit.cause)) {
      yield* checkpoint(L)
      return finishRun(L, "stopped")
    }
    const err = Cause.squash(exit.cause)
    if (err instanceof NonFiniteUpdate) {
      L.log(`error: ${err.message}; the last good checkpoint is kept in ${L.run.checkpointDir}`)
      return finishRun(L, "failed", { error: err.message })
    }
    if (isUserError(err)) {
      finishRun(L, "failed", { error: err.message })
      return yield* Effect.fail(err)
    }
    // A bug: its stack to the run's log, the run summarised as failed, and the defect goes on (exit 1).
    appendFileSync(join(L.run.dir, "error.log"), `${new Date().toISOString()} step ${L.step + 1}\n${Cause.pretty(exit.cause)}\n`)
    finishRun(L, "failed", { error: `internal error at step ${L.step + 1}: ${String((err as Error)?.message ?? err)} (stack in ${join(L.run.dir, "error.log")})` })
    return yield* Effect.die(err)
  })

export const trainLoop = (s: TrainSetup, o: RunOptions): Effect.Effect<RunSummary, UserError, ResultsStore | Scorer> =>
  Effect.gen(function* () {
    const store = yield* ResultsStore
    const log = o.onLog ?? ((l: string) => console.error(l))
    const { config, opts } = s
    if (s.warmStartNotice) log(s.warmStartNotice)
    const t0 = performance.now()
    const opened = yield* attemptSync(() => openRunFolder(store, config, { ...o, plugins: s.plugins }))
    if (opened.complete) return opened.complete
    const { run, resumeFrom } = opened
    const started = yield* startPolicy(s, o, opened, join(run.checkpointDir, "initial.ckpt"), log)
    if (!started) {
      log("stopped during the SFT warm start (nothing cached); run again to start it over")
      const summary = { status: "stopped" as const, stepsDone: 0, wallSeconds: (performance.now() - t0) / 1000, finalValSuccess: null, peakValSuccess: null, final: {} }
      run.writeSummary(summary)
      return { format: 2 as const, runId: run.runId, ...summary } as RunSummary
    }
    const state: TrainerState = resumeFrom?.state ?? { step: 0, wallSeconds: 0, peakValSuccess: null, finalValSuccess: null, miEma: {} }
    const scorer = yield* (yield* Scorer).make(started.policy)
    if (opts.teacherForcing === "scorer") log(`teacher forcing: ${scorer?.forward ? `on scorer ${scorer.id}` : `scorer ${scorer?.id ?? "(none)"} has no forward: the policy's own`}`)
    const miEma: Record<string, MiEma> = structuredClone(state.miEma)
    const c: TrainContext = { s, policy: started.policy, ref: started.ref, scorer, miEma, resolveFilter: o.resolveFilter }
    const headline = `val/success@${tempLabel(opts.valTemperatures[0] ?? 0.5)}`
    const { peakValSuccess, finalValSuccess } = state
    const L: Loop = { s, o, run, c, log, t0, priorSeconds: state.wallSeconds, headline, lines: [...opened.lines], sft: started.sft, step: state.step, peakValSuccess, finalValSuccess }
    const exit = yield* untilAborted(runSteps(L), o.signal)
    yield* Effect.promise(() => run.close())
    return yield* settle(L, exit)
  })
