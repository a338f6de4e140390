/**
 * The policy at the start of RL: fresh, a shipped warm start (core/train/warm-starts.ts), from a
 * checkpoint (`init`), or after an SFT warm start on
 * the env teacher's turns (`sftSteps`), cached under <out>/.sft-cache/ by the hash of its inputs
 * so that the runs of a sweep that share a warm start train it once. The SFT goes through the
 * policy's own `sft` (TrainablePolicy contract): the trainer knows no policy's internals.
 */
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs"
import { join } from "node:path"
import { type SftProgress, type TrainablePolicy, warmStartRef } from "../contracts/index.ts"
import { UsageError } from "../errors.ts"
import { contentHash } from "../hash.ts"
import { writeFileAtomic } from "../results/atomic.ts"
import type { TrainSetup } from "./setup.ts"
import { type CollectOptions, collectTeacherTurns } from "./teacher-turns.ts"
import { checkWarmStartFile } from "./warm-starts.ts"

/** What the SFT warm start reported (kept next to its cache entry), logged on the step-0 line. */
export interface SftReport {
  readonly steps: number
  readonly loss: number
  readonly heldOutAcc: number
  readonly seconds: number
}

export const sftMetrics = (r: SftReport | undefined): Record<string, number> => (r ? { "sft/steps": r.steps, "sft/loss": r.loss, "sft/token_acc": r.heldOutAcc, "perf/sft_seconds": r.seconds } : {})

const isTrainable = (p: unknown): p is TrainablePolicy => typeof (p as TrainablePolicy)?.accumulate === "function" && typeof (p as TrainablePolicy)?.step === "function"

/** The SFT cache key: every input of the warm start (its own seed included, initial weights too). */
export const sftCacheKey = (s: TrainSetup, sftSeed: number): string => {
  const { config, opts } = s
  return contentHash({
    env: config.env,
    envOptions: config.envOptions,
    policy: config.policy,
    policyOptions: config.policyOptions,
    seed: sftSeed,
    sftSteps: opts.sftSteps,
    sftLr: opts.sftLr,
    sftBatch: opts.sftBatch,
    sftTurns: opts.sftTurns,
    eps: opts.teacherEpsilon,
    noise: opts.reasoningNoise,
    instructions: s.rollout.instructions ?? null,
    maxTurns: s.rollout.maxTurns,
    ...(opts.instanceSplit ? { instanceSplit: true } : {}),
    ...(opts.sftInstanceShare !== undefined ? { sftInstanceShare: opts.sftInstanceShare } : {})
  })
}

/** Which teacher turns the setup's SFT trains on (sftTurns, ε, reasoning noise, sftSeed, instance split). */
export const teacherTurnOptions = (s: TrainSetup): CollectOptions => ({
  turns: s.opts.sftTurns,
  epsilon: s.opts.teacherEpsilon,
  reasoningNoise: s.opts.reasoningNoise,
  seed: s.opts.sftSeed ?? s.config.seed,
  instructions: s.rollout.instructions,
  maxTurns: s.rollout.maxTurns,
  instanceSplit: s.opts.instanceSplit,
  sftInstanceShare: s.opts.sftInstanceShare
})

/**
 * SFT of `policy` on the env teacher's turns as the setup's options define them (sftTurns, ε,
 * reasoning noise, sftSeed, instance split): the warm start's SFT, and the later stages of a
 * shipped warm start that continues another (plugins/tinylm/warmstarts/recipes.ts), which see the same turns.
 */
export const sftOnTeacher = async (
  s: TrainSetup,
  policy: TrainablePolicy,
  stage: { readonly steps: number; readonly lr: number; readonly cooldown?: number },
  signal?: AbortSignal,
  log?: (l: string) => void
) => {
  const { config, opts } = s
  if (!policy.sft) throw new UsageError({ field: "--sft-steps", message: `policy ${config.policy} has no SFT warm start; start it from a checkpoint with --init instead` })
  const teacher = teacherTurnOptions(s)
  const turns = await collectTeacherTurns(s.spec, s.envOptions, teacher)
  return policy.sft(
    turns,
    {
      steps: stage.steps,
      lr: stage.lr,
      batch: opts.sftBatch,
      targetAcc: 2,
      evalEvery: 100,
      maxGradNorm: opts.maxGradNorm,
      seed: teacher.seed,
      ...(stage.cooldown ? { cooldown: stage.cooldown } : {}),
      ...(signal ? { signal } : {})
    },
    log && sftProgressLog(stage.steps, log)
  )
}

/** A line every SFT_PROGRESS_EVERY steps: an SFT of a few thousand steps runs for minutes. */
export const SFT_PROGRESS_EVERY = 500
export const sftProgressLog = (steps: number, log: (l: string) => void) => (p: SftProgress) => {
  if (p.step % SFT_PROGRESS_EVERY === 0 && p.step < steps)
    log(`sft: step ${p.step}/${steps}, loss ${p.loss.toFixed(4)}${p.heldOutAcc === undefined ? "" : `, held-out token acc ${p.heldOutAcc.toFixed(3)}`}, ${p.seconds.toFixed(0)} s`)
}

export const initialPolicy = async (
  s: TrainSetup,
  outDir: string,
  log: (l: string) => void,
  signal?: AbortSignal,
  init: string | undefined = s.opts.init
): Promise<{ policy: TrainablePolicy; sft?: SftReport }> => {
  const { config, opts } = s
  const vocabulary = s.spec.vocabulary(s.envOptions)
  const sftSeed = opts.sftSeed ?? config.seed
  const sft = opts.sftSteps > 0 && !init && !s.warmStart
  const policy = await s.policySpec.make(s.policyOptions, { vocabulary, seed: sft ? sftSeed : config.seed })
  if (!isTrainable(policy)) throw new UsageError({ field: "policy", message: `policy ${config.policy} is not trainable` })
  let report: SftReport | undefined
  if (s.warmStart && !init) {
    // A shipped warm start, checked against its hash before use.
    checkWarmStartFile(s.warmStart)
    await policy.load(s.warmStart.path)
    report = s.warmStart.report
    log(`warm start: ${warmStartRef(s.warmStart)}`)
  } else if (init) {
    if (!existsSync(init)) throw new UsageError({ field: "--init", message: `--init ${init}: file does not exist` })
    try {
      await policy.load(init)
    } catch (e) {
      throw new UsageError({ field: "--init", message: `--init ${init}: ${(e as Error).message}; use a checkpoint of the same policy and preset` })
    }
  } else if (sft) {
    const key = sftCacheKey(s, sftSeed)
    const cachePath = join(outDir, ".sft-cache", `${key}.ckpt`)
    const reportPath = join(outDir, ".sft-cache", `${key}.json`)
    if (existsSync(cachePath)) {
      log(`sft: cached ${cachePath}`)
      await policy.load(cachePath)
      if (existsSync(reportPath)) report = JSON.parse(readFileSync(reportPath, "utf8")) as SftReport
    } else {
      const r = await sftOnTeacher(s, policy, { steps: opts.sftSteps, lr: opts.sftLr }, signal, log)
      log(`sft: ${r.steps} steps, loss ${r.loss.toFixed(4)}, held-out token acc ${r.heldOutAcc.toFixed(3)}, ${r.seconds.toFixed(1)} s`)
      mkdirSync(join(outDir, ".sft-cache"), { recursive: true })
      const tmp = `${cachePath}.tmp-${process.pid}`
      await policy.save(tmp)
      report = { steps: r.steps, loss: r.loss, heldOutAcc: r.heldOutAcc, seconds: r.seconds }
      writeFileAtomic(reportPath, JSON.stringify(report) + "\n")
      renameSync(tmp, cachePath)
    }
  }
  policy.resetOptimizer?.()
  return { policy, ...(report ? { sft: report } : {}) }
}
