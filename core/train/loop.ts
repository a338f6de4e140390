/**
 * The StarPO trainer loop (DESIGN.md §3) as an Effect program; the numeric work of each step
 * (rollout, filter, advantages, update) is plain code in `trainStep`.
 * One step: P seeds × G trajectories ─► pre-filter diagnostics (reasoning fidelity, MI proxies,
 * reward-spread stats, gradient decomposition) ─► filter (with dynamic sampling when the
 * algorithm or filter asks) ─► advantages ─► epochs × minibatches of optimizer steps ─► one
 * metrics line ─► validation every evalEvery steps ─► checkpoint every checkpointEvery steps.
 */
import { Effect } from "effect"
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs"
import { join } from "node:path"
import type { AlgoTrajectory, LossRegularisers } from "../contracts/algorithm.ts"
import type { CrossScorer, Group, LossFn, LossOutput, Policy, TokenForward, TrainablePolicy, TrainItem } from "../contracts/index.ts"
import { filterStats } from "../diagnostics/filter-stats.ts"
import { miMetrics, miProxies, type MiEma } from "../diagnostics/mi.ts"
import { collapseCheck } from "../diagnostics/collapse.ts"
import { buildMiRows, type TurnSample } from "../diagnostics/samples.ts"
import { UsageError } from "../errors.ts"
import { contentHash } from "../hash.ts"
import { writeFileAtomic } from "../results/atomic.ts"
import { openRun, runIdOf, type RunHandle } from "../results/store.ts"
import { derive } from "../rng.ts"
import type { MetricsLine, RunSummary } from "../schema/results.ts"
import { latestCheckpoint, saveCheckpoint, type TrainerState } from "./checkpoint.ts"
import { tempLabel, validate } from "./eval.ts"
import { gradDecomposition } from "./grad-decomp.ts"
import { rollout, type RolloutBatch, rolloutStats, type Trajectory } from "./rollout.ts"
import type { TrainSetup } from "./setup.ts"

export interface RunOptions {
  readonly outDir: string
  readonly onProgress?: (p: { step: number; steps: number; metrics: Record<string, number | null> }) => void
  readonly onLog?: (line: string) => void
  readonly signal?: AbortSignal
  readonly resume?: boolean
  readonly fresh?: boolean
}

/** Seeds beyond any step's training seeds for dynamic-sampling redraws. */
const REDRAW_SEED_BASE = 50_000_000

interface Ctx {
  readonly s: TrainSetup
  readonly policy: TrainablePolicy
  readonly ref: Policy | undefined
  readonly scorer: CrossScorer | undefined
  readonly miEma: Record<string, MiEma>
}

const isTrainable = (p: unknown): p is TrainablePolicy =>
  typeof (p as TrainablePolicy)?.accumulate === "function" && typeof (p as TrainablePolicy)?.step === "function"

/** Per-token values of the items before the update (PPO's old values). */
const forwardValues = async (policy: TrainablePolicy, items: TrainItem[]): Promise<TokenForward[]> => {
  if (policy.forward) return policy.forward(items)
  let captured: ReadonlyArray<TokenForward> = []
  const zero: LossFn = (fw) => {
    captured = fw
    return {
      loss: 0,
      grads: fw.map((f) => ({ dLogprobs: new Float32Array(f.logprobs.length), dEntropy: new Float32Array(f.logprobs.length), dValues: new Float32Array(f.logprobs.length) })),
      stats: {}
    }
  }
  await policy.accumulate(items, zero)
  policy.zeroGrad()
  return captured.map((f) => ({ logprobs: Float32Array.from(f.logprobs), entropy: Float32Array.from(f.entropy), values: Float32Array.from(f.values) }))
}

interface Prepared {
  readonly items: TrainItem[]
  readonly obj: Array<{ advantages: Float32Array; oldLogprobs: Float32Array; refLogprobs?: Float32Array; returns?: Float32Array; oldValues?: Float32Array }>
}

/** Training sequences (one per turn with tokens) with advantages for the given trajectories. */
const prepare = async (c: Ctx, trajs: ReadonlyArray<Trajectory & { groupId: number }>): Promise<Prepared> => {
  const { s, policy } = c
  const turnItems: TrainItem[][] = trajs.map((t) => t.turns.map((u) => ({ prompt: u.prompt, tokens: u.completion.tokens })))
  const flat = turnItems.flat()
  let oldLp = trajs.flatMap((t) => t.turns.map((u) => u.completion.rawLogprobs))
  let values: Float32Array[] | undefined
  if (s.algo.needsValue || s.opts.recomputeOldLogprobs) {
    const fw = await forwardValues(policy, flat)
    if (s.algo.needsValue) values = fw.map((f) => f.values)
    if (s.opts.recomputeOldLogprobs) oldLp = fw.map((f) => f.logprobs)
  }
  const refLp = c.ref && s.opts.klCoef > 0
    ? (await c.ref.score(flat.map((it) => ({ prompt: it.prompt, continuation: it.tokens })))).map((r) => r.logprobs)
    : undefined
  const concat = (parts: Float32Array[]): Float32Array => {
    const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0))
    let o = 0
    for (const p of parts) (out.set(p, o), (o += p.length))
    return out
  }
  let k = 0
  const algoTrajs: AlgoTrajectory[] = trajs.map((t) => {
    const n = t.turns.length
    const lp = oldLp.slice(k, k + n)
    const v = values?.slice(k, k + n)
    k += n
    return {
      group: t.groupId,
      ret: t.ret,
      turnRewards: t.turns.map((u) => u.reward),
      turnLengths: t.turns.map((u) => u.completion.tokens.length),
      oldLogprobs: concat(lp),
      ...(v ? { values: concat(v) } : {}),
      truncatedTokens: t.turns.some((u) => u.completion.finishReason === "length")
    }
  })
  const adv = s.algo.advantages(algoTrajs, s.algoOptions)
  const items: TrainItem[] = []
  const obj: Prepared["obj"] = []
  k = 0
  trajs.forEach((t, i) => {
    const a = adv[i]!
    let off = 0
    for (const u of t.turns) {
      const L = u.completion.tokens.length
      const j = k++
      if (L > 0) {
        items.push(flat[j]!)
        obj.push({
          advantages: a.advantages.subarray(off, off + L),
          oldLogprobs: oldLp[j]!,
          ...(refLp ? { refLogprobs: refLp[j]! } : {}),
          ...(a.returns && values ? { returns: a.returns.subarray(off, off + L), oldValues: values[j]! } : {})
        })
      }
      off += L
    }
  })
  return { items, obj }
}

const regularisers = (s: TrainSetup, terms: LossRegularisers["terms"]): LossRegularisers => ({
  entropyCoef: s.opts.entropyCoef,
  klCoef: s.opts.klCoef,
  klEstimator: s.opts.klEstimator,
  normLength: s.opts.maxTokens,
  terms,
  ...(s.opts.lossAgg ? { lossAgg: s.opts.lossAgg } : {})
})

const lossOf = (s: TrainSetup, obj: Prepared["obj"], terms: LossRegularisers["terms"] = "all"): LossFn =>
  s.algo.loss(obj, { ...s.algoOptions, ...regularisers(s, terms) })

class NonFiniteLoss extends Error {}

const groupsOf = (b: RolloutBatch, offset: number): Group[] =>
  b.seeds.map((seed, g) => ({ index: offset + g, seed, returns: b.trajectories.filter((t) => t.group === g).map((t) => t.ret) }))

const allEqual = (r: ReadonlyArray<number>) => Math.max(...r) - Math.min(...r) <= 1e-9

/** MI proxies on a batch's turns (first-turn and trajectory samples). */
const miDiagnostics = async (c: Ctx, b: RolloutBatch, prefix: string, step: number, modes: ReadonlyArray<"first-turn" | "trajectory">) => {
  const out: Record<string, number> = {}
  if (!c.scorer) return out
  const turns: TurnSample[] = []
  for (const t of b.trajectories) t.turns.forEach((u, turn) => turns.push({ group: t.group, traj: t.index, turn, prompt: u.prompt, reasoning: u.reasoning }))
  for (const mode of modes) {
    const rows = buildMiRows(turns, mode, derive(c.s.config.seed, "mi", prefix, mode, step), mode === "first-turn" ? c.s.opts.diagRows : Math.min(32, c.s.opts.diagRows))
    if (rows.reasonings.length === 0 || rows.prompts.length === 0) continue
    const L = await c.scorer.score(rows.reasonings, rows.prompts)
    const key = `${prefix}${mode === "first-turn" ? "first_turn" : "trajectory"}`
    const ema = (c.miEma[key] ??= {})
    const p = miProxies({ tokenMean: L.tokenMean, sum: L.sum, rows: L.rows, cols: L.cols, column: rows.column, signature: rows.signature }, ema)
    Object.assign(out, miMetrics(key as `mi/${string}`, p))
  }
  return out
}

/** One training step; returns its metrics line. */
const trainStep = async (c: Ctx, step: number): Promise<Record<string, number>> => {
  const { s, policy } = c
  const { config, opts } = s
  const P = config.P
  const tStep = performance.now()
  const m: Record<string, number> = { step }
  const seeds = Array.from({ length: P }, (_, i) => opts.trainSeedStart + (step - 1) * P + i)
  const first = await rollout(policy, s.rollout, seeds, config.G, derive(config.seed, "rollout", step, 0))
  let tokens = first.tokens
  let sampleSeconds = first.sampleSeconds
  for (const [k, v] of Object.entries(rolloutStats(first))) {
    m[k === "fact_accuracy" || k === "consistency" ? `reasoning/${k}` : `train/${k}`] = v
  }
  let lpSum = 0, lpN = 0
  for (const t of first.trajectories) for (const u of t.turns) for (const x of u.completion.rawLogprobs) (lpSum += x), lpN++
  m["rollout/neg_logprob"] = lpN > 0 ? -lpSum / lpN : 0
  const tRollout = performance.now()

  // Diagnostics on the pre-filter batch.
  const tDiag = performance.now()
  if (opts.diagEvery > 0 && (step === 1 || step % opts.diagEvery === 0)) {
    Object.assign(m, await miDiagnostics(c, first, "mi/", step, ["first-turn", "trajectory"]))
    const probeSeeds = Array.from({ length: P }, (_, i) => opts.valSeedStart + i)
    const probe = await rollout(policy, { ...s.rollout, maxTurns: 1 }, probeSeeds, config.G, derive(config.seed, "probe", step))
    Object.assign(m, await miDiagnostics(c, probe, "mi/probe_", step, ["first-turn"]))
  }
  const tagged = (b: RolloutBatch, offset: number) => b.trajectories.map((t) => Object.assign(t, { groupId: offset + t.group }))
  if (opts.gradDecompEvery > 0 && step % opts.gradDecompEvery === 0) Object.assign(m, await gradDecompStep(c, first))
  const diagSeconds = (performance.now() - tDiag) / 1000

  // Filter, with dynamic sampling when the algorithm (DAPO) or the filter (maxDraws) asks for it.
  const algoDraws = s.algo.dynamicSampling?.(s.algoOptions).maxDraws ?? 1
  const filterDraws = Number((s.filterOptions as { maxDraws?: unknown })?.maxDraws ?? 1)
  const maxDraws = Math.max(1, algoDraws, Number.isInteger(filterDraws) ? filterDraws : 1)
  const dropEqual = algoDraws > 1
  const kept: Array<Trajectory & { groupId: number }> = []
  let keptGroups = 0
  let batch = first
  for (let draw = 0; draw < maxDraws; draw++) {
    if (draw > 0) {
      const extra = Array.from({ length: P }, (_, i) => REDRAW_SEED_BASE + ((step - 1) * maxDraws + draw) * P + i)
      batch = await rollout(policy, s.rollout, extra, config.G, derive(config.seed, "rollout", step, draw))
      tokens += batch.tokens
      sampleSeconds += batch.sampleSeconds
    }
    const offset = draw * P
    const trajs = tagged(batch, offset)
    let groups = groupsOf(batch, offset)
    if (dropEqual) groups = groups.filter((g) => !allEqual(g.returns))
    const result = s.filter.select(groups, { options: s.filterOptions, rng: derive(config.seed, "filter", step, draw), step })
    if (draw === 0) Object.assign(m, filterStats(groupsOf(batch, 0), result, "std", s.filterId))
    for (const k of result.keep) {
      if (keptGroups >= P || k.trajectories.length === 0) continue
      keptGroups++
      for (const j of k.trajectories) kept.push(trajs.find((t) => t.groupId === k.group && t.index === j)!)
    }
    m["train/draws"] = draw + 1
    if (maxDraws === 1 || keptGroups >= P) break
  }
  m["train/kept_groups"] = keptGroups

  // Update.
  const tUpdate = performance.now()
  let optimizerSteps = 0
  const lossStats: Record<string, number[]> = {}
  const gradNorms: number[] = []
  let entSum = 0, entN = 0
  if (kept.length === 0) {
    m["train/skipped_update"] = 1
  } else {
    const prep = await prepare(c, kept)
    let order = prep.items.map((_, i) => i)
    if (opts.padFilteredBatch) {
      const target = first.trajectories.reduce((a, t) => a + t.turns.filter((u) => u.completion.tokens.length > 0).length, 0)
      const rng = derive(config.seed, "pad", step)
      while (order.length < target) order.push(rng.int(prep.items.length))
    }
    m["train/kept_items"] = order.length
    m["train/skipped_update"] = order.length === 0 ? 1 : 0
    for (let epoch = 0; epoch < opts.epochs && order.length > 0; epoch++) {
      const shuffled = derive(config.seed, "minibatch", step, epoch).shuffle([...order])
      const nMb = opts.minibatchSize !== undefined ? Math.max(1, Math.round(shuffled.length / opts.minibatchSize)) : Math.min(opts.minibatches, shuffled.length)
      for (let b = 0; b < nMb; b++) {
        const idx = shuffled.slice(Math.floor((b * shuffled.length) / nMb), Math.floor(((b + 1) * shuffled.length) / nMb))
        const inner = lossOf(s, idx.map((i) => prep.obj[i]!))
        const wrapped: LossFn = (fw): LossOutput => {
          if (epoch === 0) for (const f of fw) for (const e of f.entropy) (entSum += e), entN++
          return inner(fw)
        }
        const out = await policy.accumulate(idx.map((i) => prep.items[i]!), wrapped)
        if (!Number.isFinite(out.loss)) {
          policy.zeroGrad()
          throw new NonFiniteLoss(`non-finite loss (${out.loss}) at step ${step}, epoch ${epoch + 1}, minibatch ${b + 1}; no update was applied. Lower --lr or raise maxGradNorm clipping (--set maxGradNorm=...)`)
        }
        for (const [k, v] of Object.entries(out.stats)) (lossStats[k] ??= []).push(v)
        const norm = policy.step({ lr: config.lr, maxGradNorm: opts.maxGradNorm })
        if (!Number.isFinite(norm)) throw new NonFiniteLoss(`non-finite gradient norm at step ${step}; lower --lr`)
        gradNorms.push(norm)
        optimizerSteps++
      }
    }
  }
  for (const [k, v] of Object.entries(lossStats)) m[k] = v.reduce((a, b) => a + b, 0) / v.length
  m["train/optimizer_steps"] = optimizerSteps
  if (gradNorms.length > 0) m["train/grad_norm"] = gradNorms.reduce((a, b) => a + b, 0) / gradNorms.length
  if (entN > 0) m["train/entropy"] = entSum / entN
  m["charts/lr"] = config.lr
  const now = performance.now()
  m["perf/step_seconds"] = (now - tStep) / 1000
  m["perf/rollout_seconds"] = (tRollout - tStep) / 1000
  m["perf/diag_seconds"] = diagSeconds
  m["perf/update_seconds"] = (now - tUpdate) / 1000
  m["perf/tokens_per_second"] = sampleSeconds > 0 ? tokens / sampleSeconds : 0
  return m
}

/** Gradient decomposition needs prepared items per bucket (async), so it runs through this wrapper. */
const gradDecompStep = async (c: Ctx, b: RolloutBatch): Promise<Record<string, number>> => {
  const trajs = b.trajectories.map((t) => Object.assign(t, { groupId: t.group }))
  const returns = b.seeds.map((_, g) => trajs.filter((t) => t.group === g).map((t) => t.ret))
  const prepared = await prepare(c, trajs)
  // Items in trajectory order; remember each item's group.
  const itemGroup: number[] = []
  for (const t of trajs) for (const u of t.turns) if (u.completion.tokens.length > 0) itemGroup.push(t.group)
  return gradDecomposition(c.policy, returns, (groups) => {
    const set = new Set(groups)
    const idx = itemGroup.map((g, i) => (set.has(g) ? i : -1)).filter((i) => i >= 0)
    const obj = idx.map((i) => prepared.obj[i]!)
    return { items: idx.map((i) => prepared.items[i]!), loss: (terms) => lossOf(c.s, obj, terms) }
  }, c.s.opts.gradDecompBuckets)
}

const truncateMetrics = (run: RunHandle, upTo: number): MetricsLine[] => {
  const p = join(run.dir, "metrics.jsonl")
  if (!existsSync(p)) return []
  const lines = readFileSync(p, "utf8").split("\n").filter((l) => l.trim() !== "")
  const kept: MetricsLine[] = []
  for (const l of lines) {
    try {
      const x = JSON.parse(l) as MetricsLine
      if (typeof x.step === "number" && x.step <= upTo) kept.push(x)
    } catch {
      // A torn last line from a killed writer.
    }
  }
  writeFileAtomic(p, kept.map((x) => JSON.stringify(x) + "\n").join(""))
  return kept
}

/** The policy at the start of RL: fresh, --init, or SFT (cached by the hash of its inputs). */
/** What the SFT warm start reported (kept next to its cache entry), logged on the step-0 line. */
interface SftReport {
  readonly steps: number
  readonly loss: number
  readonly heldOutAcc: number
  readonly seconds: number
}

const sftMetrics = (r: SftReport | undefined): Record<string, number> =>
  r ? { "sft/steps": r.steps, "sft/loss": r.loss, "sft/token_acc": r.heldOutAcc, "perf/sft_seconds": r.seconds } : {}

const initialPolicy = async (s: TrainSetup, outDir: string, log: (l: string) => void, signal?: AbortSignal): Promise<{ policy: TrainablePolicy; sft?: SftReport }> => {
  const { config, opts } = s
  const vocabulary = s.spec.vocabulary(s.envOptions)
  // An SFT warm start is a function of its own seed (its cache key), initial weights included.
  const sftSeed = opts.sftSeed ?? config.seed
  const initSeed = opts.sftSteps > 0 && !opts.init ? sftSeed : config.seed
  const policy = await s.policySpec.make(s.policyOptions, { vocabulary, seed: initSeed })
  if (!isTrainable(policy)) throw new UsageError({ field: "policy", message: `policy ${config.policy} is not trainable` })
  let sftReport: SftReport | undefined
  if (opts.init) {
    if (!existsSync(opts.init)) throw new UsageError({ field: "--init", message: `--init ${opts.init}: file does not exist` })
    try {
      await policy.load(opts.init)
    } catch (e) {
      throw new UsageError({ field: "--init", message: `--init ${opts.init}: ${(e as Error).message}; use a checkpoint of the same policy and preset` })
    }
  } else if (opts.sftSteps > 0) {
    const key = contentHash({ env: config.env, envOptions: config.envOptions, policy: config.policy, policyOptions: config.policyOptions, seed: sftSeed, sftSteps: opts.sftSteps, sftLr: opts.sftLr, sftBatch: opts.sftBatch, sftTurns: opts.sftTurns, eps: opts.teacherEpsilon, noise: opts.reasoningNoise, instructions: s.rollout.instructions ?? null, maxTurns: s.rollout.maxTurns })
    const cachePath = join(outDir, ".sft-cache", `${key}.ckpt`)
    const reportPath = join(outDir, ".sft-cache", `${key}.json`)
    if (existsSync(cachePath)) {
      log(`sft: cached ${cachePath}`)
      await policy.load(cachePath)
      if (existsSync(reportPath)) sftReport = JSON.parse(readFileSync(reportPath, "utf8")) as SftReport
    } else {
      const sft = await import("../../plugins/tinylm/sft.ts")
      if (!("tokenizer" in policy)) throw new UsageError({ field: "--sft-steps", message: `SFT needs the tinylm policy (got ${config.policy}); use --init <checkpoint> instead` })
      const turns = await sft.collectTeacherTurnsAsync(s.spec, s.envOptions, { turns: opts.sftTurns, epsilon: opts.teacherEpsilon, reasoningNoise: opts.reasoningNoise, seed: sftSeed, instructions: s.rollout.instructions, maxTurns: s.rollout.maxTurns })
      const r = await sft.runSft(policy as any, turns, { steps: opts.sftSteps, lr: opts.sftLr, batch: opts.sftBatch, targetAcc: 2, evalEvery: 100, maxGradNorm: opts.maxGradNorm, seed: sftSeed, ...(signal ? { signal } : {}) })
      log(`sft: ${r.steps} steps, loss ${r.loss.toFixed(4)}, held-out token acc ${r.heldOutAcc.toFixed(3)}, ${r.seconds.toFixed(1)} s`)
      mkdirSync(join(outDir, ".sft-cache"), { recursive: true })
      const tmp = `${cachePath}.tmp-${process.pid}`
      await policy.save(tmp)
      sftReport = { steps: r.steps, loss: r.loss, heldOutAcc: r.heldOutAcc, seconds: r.seconds }
      writeFileAtomic(reportPath, JSON.stringify(sftReport) + "\n")
      renameSync(tmp, cachePath)
    }
  }
  policy.resetOptimizer?.()
  return { policy, ...(sftReport ? { sft: sftReport } : {}) }
}

const lastValues = (lines: ReadonlyArray<MetricsLine>): Record<string, number | null> => {
  const out: Record<string, number | null> = {}
  for (const l of lines) Object.assign(out, l)
  return out
}

export const trainLoop = (s: TrainSetup, o: RunOptions): Effect.Effect<RunSummary, UsageError> =>
  Effect.tryPromise({
    try: () => trainAsync(s, o),
    catch: (e) => (e instanceof UsageError ? e : new UsageError({ field: "train", message: String((e as Error)?.stack ?? e) }))
  })

const trainAsync = async (s: TrainSetup, o: RunOptions): Promise<RunSummary> => {
  const log = o.onLog ?? ((l: string) => console.error(l))
  const { config, opts } = s
  const existing = join(o.outDir, runIdOf(config).runId)
  if (!o.resume && !o.fresh && existsSync(join(existing, "metrics.jsonl"))) {
    throw new UsageError({ field: "--resume", message: `${existing} already holds this run; pass --resume to continue it (a complete run is left as it is) or --fresh to start it over` })
  }
  const run = openRun(o.outDir, config)
  const t0 = performance.now()
  const ckptDir = run.checkpointDir
  const initialPath = join(ckptDir, "initial.ckpt")
  const resumeFrom = o.resume ? latestCheckpoint(ckptDir) : undefined
  if (o.resume && !resumeFrom && existsSync(join(run.dir, "summary.json"))) {
    const prev = JSON.parse(readFileSync(join(run.dir, "summary.json"), "utf8")) as RunSummary
    if (prev.status === "complete") return prev
  }
  if (!resumeFrom) {
    rmSync(join(run.dir, "metrics.jsonl"), { force: true })
    rmSync(ckptDir, { recursive: true, force: true })
  }
  let policy: TrainablePolicy
  let state: TrainerState
  let lines: MetricsLine[] = []
  let sftReport: SftReport | undefined
  if (resumeFrom) {
    policy = (await initialPolicy({ ...s, opts: { ...opts, sftSteps: 0, init: initialPath } }, o.outDir, log)).policy
    state = resumeFrom.state
    lines = truncateMetrics(run, state.step)
  } else {
    let init: Awaited<ReturnType<typeof initialPolicy>>
    try {
      init = await initialPolicy(s, o.outDir, log, o.signal)
    } catch (e) {
      if ((e as Error)?.name !== "SftStopped") throw e
      log(`stopped during the SFT warm start (nothing cached); run again to start it over`)
      const summary = { status: "stopped" as const, stepsDone: 0, wallSeconds: (performance.now() - t0) / 1000, finalValSuccess: null, peakValSuccess: null, final: {} }
      run.writeSummary(summary)
      return { format: 1, runId: run.runId, ...summary } as RunSummary
    }
    policy = init.policy
    sftReport = init.sft
    mkdirSync(ckptDir, { recursive: true })
    await policy.save(initialPath)
    state = { step: 0, wallSeconds: 0, peakValSuccess: null, finalValSuccess: null, miEma: {} }
  }
  // The reference policy for KL is the RL start (post-SFT / --init) snapshot.
  const ref = opts.klCoef > 0 ? await policy.snapshot() : undefined
  if (resumeFrom) {
    await policy.load(resumeFrom.policyPath)
    log(`resume: from step ${state.step} (${resumeFrom.policyPath})`)
  }
  const scorer = s.scorerSpec ? await s.scorerSpec.make(s.scorerOptions, policy) : undefined
  const miEma: Record<string, MiEma> = JSON.parse(JSON.stringify(state.miEma))
  const c: Ctx = { s, policy, ref, scorer, miEma }
  const headline = tempLabel(opts.valTemperatures[0] ?? 0.5)
  let { peakValSuccess, finalValSuccess } = state
  const emit = (m: Record<string, number>) => {
    run.appendMetrics(m)
    lines.push(m)
    const v = m[`val/success@${headline}`]
    if (v !== undefined) {
      finalValSuccess = v
      peakValSuccess = peakValSuccess === null ? v : Math.max(peakValSuccess, v)
    }
    o.onProgress?.({ step: m.step ?? 0, steps: config.steps, metrics: m })
  }
  const snapshotState = (step: number): TrainerState => ({
    step,
    wallSeconds: state.wallSeconds + (performance.now() - t0) / 1000,
    peakValSuccess,
    finalValSuccess,
    miEma: JSON.parse(JSON.stringify(miEma))
  })
  const finish = (status: RunSummary["status"], stepsDone: number, error?: string, earlyStop?: string): RunSummary => {
    const summary = {
      status,
      stepsDone,
      wallSeconds: state.wallSeconds + (performance.now() - t0) / 1000,
      finalValSuccess,
      peakValSuccess,
      final: lastValues(lines),
      ...(error ? { error } : {}),
      ...(earlyStop ? { earlyStop } : {})
    }
    run.writeSummary(summary)
    return { format: 1, runId: run.runId, ...summary } as RunSummary
  }
  if (state.step === 0) emit({ step: 0, ...sftMetrics(sftReport), ...(await validate(policy, s.rollout, opts, config.seed, 0)) })
  let step = state.step
  let warned = ""
  while (step < config.steps) {
    // A step is pure computation behind already-resolved promises: give the event loop one turn
    // so Ctrl-C, a sweep's "stop" and a closed stdin are seen between steps.
    await new Promise<void>((resolve) => setTimeout(resolve, 0))
    if (o.signal?.aborted) {
      await saveCheckpoint(ckptDir, policy, snapshotState(step), opts.keepCheckpoints)
      return finish("stopped", step)
    }
    const next = step + 1
    let m: Record<string, number>
    try {
      m = await trainStep(c, next)
    } catch (e) {
      if (e instanceof NonFiniteLoss) {
        log(`error: ${e.message}; the last good checkpoint is kept in ${ckptDir}`)
        return finish("failed", step, e.message)
      }
      throw e
    }
    const last = next === config.steps
    if (last || (opts.evalEvery > 0 && next % opts.evalEvery === 0)) Object.assign(m, await validate(policy, s.rollout, opts, config.seed, next))
    // The collapse warning (issue 6) is a function of the history, so a resumed run logs the same.
    const check = collapseCheck([...lines, m], opts.collapse)
    m["collapse/warning"] = check.warning ? 1 : 0
    if (check.warning && check.reason !== warned) log(`step ${next}: collapse warning: ${check.reason}`)
    warned = check.reason
    emit(m)
    step = next
    if (check.stop) {
      log(`step ${step}: early stop: ${check.stopReason}`)
      await saveCheckpoint(ckptDir, policy, snapshotState(step), opts.keepCheckpoints)
      return finish("complete", step, undefined, check.stopReason)
    }
    if (last || (opts.checkpointEvery > 0 && step % opts.checkpointEvery === 0)) {
      await saveCheckpoint(ckptDir, policy, snapshotState(step), opts.keepCheckpoints)
    }
  }
  return finish("complete", step)
}
