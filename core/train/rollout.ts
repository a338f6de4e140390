/**
 * The rollout manager (docs/design.md §3): P prompts (env seeds) × G trajectories each (G copies of
 * each seed), up to maxTurns turns. Each turn every live env's prompt goes into ONE batched
 * `policy.sample` call; the response is parsed with the reference regex (core/prompt.ts). A
 * response that does not parse costs the format penalty once for that turn, the env is not
 * stepped, and the next prompt is the same observation with a note in front. A response that
 * parses but whose action the env rejects (info.valid false: not stepped) costs the same penalty,
 * as in RAGEN's es_manager (penalty unless every action is valid). Without it an invalid action
 * was free while a real Sokoban move costs −0.1, and RL learned to answer nonsense (validation
 * success 0.17 → 0 within 30 steps). Each turn's
 * completion becomes one training sequence (prompt + completion tokens; the loss only sees
 * completion tokens). Reasoning fidelity is graded against the state before the action.
 * Plain synchronous code around the one async sample call per turn.
 */
import type { Completion, Env, EnvSpec, Policy, ReasoningGrade } from "../contracts/index.ts"
import { type InstancePart, splitSeeds } from "../env/instance-split.ts"
import { actionBudgetFor, withTimeLimit } from "../env/time-limit.ts"
import { buildPrompt, formatCompletion, parseResponse, THINK_OPEN, turnPenalty, withFormatNote } from "../prompt.ts"
import type { Rng } from "../rng.ts"

/** Prepended to the observation after a response that did not parse (core/prompt.ts; the env server uses the same). */
export { FORMAT_NOTE } from "../prompt.ts"

export interface RolloutSettings {
  readonly spec: EnvSpec
  readonly envOptions: unknown
  readonly maxTurns: number
  /** markov: current observation only; last-k: the last `historyTurns` turns; full: all turns. */
  readonly context: "markov" | "last-k" | "full"
  readonly historyTurns: number
  /** Shown at the top of each prompt when defined. */
  readonly instructions: string | undefined
  readonly maxTokens: number
  readonly temperature: number
  readonly topP: number
  readonly minP: number
  /** Asked before each turn of trajectory i for the teacher's facts of its state (samples.jsonl); undefined: none kept. */
  readonly teachFacts?: (trajectory: number, env: Env, turn: number) => ReadonlyArray<string> | null | undefined
  readonly formatPenalty: number
  /** Actions per trajectory before truncation (the time-limit wrapper); default: the spec's actionBudget. */
  readonly actionBudget?: number
  /**
   * Disjoint validation and training instances (core/env/instance-split.ts): when set, each seed
   * is replaced by one whose instance falls into the rollout's part; the map memoises that.
   */
  readonly instanceSplit?: Map<string, number>
}

export interface TurnRecord {
  readonly prompt: string
  readonly completion: Completion
  readonly reasoning: string
  readonly action: string
  /** The response parsed (both tags, in order, non-empty action). */
  readonly formatValid: boolean
  /** The env accepted the action (false when the format was invalid). */
  readonly actionValid: boolean
  /** Env reward plus the format penalty of this turn (bad format or an action the env rejected). */
  readonly reward: number
  /** Teacher-grounded fidelity; undefined when the format was invalid. */
  readonly grade: ReasoningGrade | undefined
  /** The teacher's facts for the state this turn's prompt showed: only where `teachFacts` gave them (samples). */
  readonly facts?: ReadonlyArray<string> | null
}

export interface Trajectory {
  /** Group (prompt) index in the batch and trajectory index within the group. */
  readonly group: number
  readonly index: number
  readonly seed: number
  readonly turns: TurnRecord[]
  /** Return R = Σ env rewards + penalties. */
  ret: number
  success: boolean
  terminated: boolean
  truncated: boolean
}

export interface RolloutBatch {
  readonly trajectories: Trajectory[]
  /** Seeds of the groups, in group order. */
  readonly seeds: number[]
  readonly G: number
  /** Completion tokens generated and wall seconds spent sampling. */
  readonly tokens: number
  readonly sampleSeconds: number
}

const renderResponse = (completion: string): string => `${THINK_OPEN} ${completion.trim()}`

/**
 * Roll out G trajectories for each seed; `rng` drives sampling only (envs have their own seeds).
 * `part` says which instances the seeds may reach when the settings split them (training unless
 * validating); the batch records the seeds the envs were reset with.
 */
export const rollout = async (policy: Policy, s: RolloutSettings, slotSeeds: ReadonlyArray<number>, G: number, rng: Rng, part: InstancePart = "train"): Promise<RolloutBatch> => {
  const seeds = s.instanceSplit ? await splitSeeds(s.spec, s.envOptions, slotSeeds, part, s.instanceSplit) : slotSeeds
  const n = seeds.length * G
  const envs: Env[] = []
  const obs: string[] = []
  const history: Array<Array<{ observation: string; response: string }>> = []
  const trajectories: Trajectory[] = []
  for (let g = 0; g < seeds.length; g++) {
    for (let k = 0; k < G; k++) {
      // The budget is the harness's (Gymnasium's TimeLimit), not each env's.
      const env = withTimeLimit(s.spec.make(s.envOptions), s.actionBudget ?? actionBudgetFor(s.spec, s.envOptions))
      obs.push(env.resetAsync ? await env.resetAsync(seeds[g]!) : env.reset(seeds[g]!))
      envs.push(env)
      history.push([])
      trajectories.push({ group: g, index: k, seed: seeds[g]!, turns: [], ret: 0, success: false, terminated: false, truncated: false })
    }
  }
  let tokens = 0
  let sampleSeconds = 0
  for (let turn = 0; turn < s.maxTurns; turn++) {
    const live: number[] = []
    for (let i = 0; i < n; i++) if (!envs[i]!.done && !trajectories[i]!.terminated) live.push(i)
    if (live.length === 0) break
    const prompts = live.map((i) => {
      const h = history[i]!
      const shown = s.context === "markov" ? [] : s.context === "last-k" ? h.slice(-s.historyTurns) : h
      return buildPrompt({ instructions: s.instructions, history: shown, observation: obs[i]! })
    })
    const t0 = performance.now()
    const completions = await policy.sample(prompts, { temperature: s.temperature, topP: s.topP, minP: s.minP, maxTokens: s.maxTokens }, rng.split(turn))
    sampleSeconds += (performance.now() - t0) / 1000
    if (completions.length !== live.length) throw new Error(`policy ${policy.id} returned ${completions.length} completions for ${live.length} prompts`)
    for (let j = 0; j < live.length; j++) {
      const i = live[j]!
      const env = envs[i]!
      const tr = trajectories[i]!
      const c = completions[j]!
      tokens += c.tokens.length
      const parsed = parseResponse(c.text)
      let reward: number
      let grade: ReasoningGrade | undefined
      let actionValid = false
      const shownObs = obs[i]!
      // Before the step: the state the policy saw (core/train/samples.ts; the sampling rng is not touched).
      const facts = s.teachFacts?.(i, env, turn)
      if (parsed.valid) {
        const before = env.state()
        // Remote-backed envs step asynchronously; the local (sync) path stays await-free.
        const r = env.stepAsync ? await env.stepAsync(parsed.action) : env.step(parsed.action)
        grade = env.gradeReasoning(before, parsed.reasoning, parsed.action)
        actionValid = r.info.valid
        reward = r.reward + turnPenalty(true, actionValid, s.formatPenalty)
        obs[i] = r.observation
        if (r.info.success) tr.success = true
        tr.terminated = r.terminated
        tr.truncated = r.truncated
      } else {
        reward = turnPenalty(false, false, s.formatPenalty)
        obs[i] = withFormatNote(shownObs)
      }
      tr.turns.push({
        prompt: prompts[j]!,
        completion: c,
        reasoning: parsed.reasoning,
        action: parsed.action,
        formatValid: parsed.valid,
        actionValid,
        reward,
        grade,
        ...(facts !== undefined ? { facts } : {})
      })
      tr.ret += reward
      history[i]!.push({
        observation: shownObs,
        response: parsed.valid ? renderResponse(formatCompletion(parsed.reasoning, parsed.action)) : renderResponse(c.text)
      })
    }
  }
  return { trajectories, seeds: [...seeds], G, tokens, sampleSeconds }
}

/** Batch statistics of a rollout (train/* or val/* before the prefix). */
export const rolloutStats = (b: RolloutBatch): Record<string, number> => {
  const T = b.trajectories
  let succ = 0,
    ret = 0,
    turns = 0,
    fmt = 0,
    act = 0,
    nTurns = 0,
    nGraded = 0,
    fact = 0,
    cons = 0,
    len = 0,
    reasonLen = 0
  for (const t of T) {
    if (t.success) succ++
    ret += t.ret
    turns += t.turns.length
    for (const u of t.turns) {
      nTurns++
      if (u.formatValid) fmt++
      if (u.actionValid) act++
      len += u.completion.tokens.length
      reasonLen += u.reasoning.length === 0 ? 0 : u.reasoning.split(/\s+/).length
      if (u.grade) {
        nGraded++
        fact += u.grade.factAccuracy
        cons += u.grade.consistency
      }
    }
  }
  const nT = Math.max(1, T.length)
  const nU = Math.max(1, nTurns)
  return {
    success: succ / nT,
    return: ret / nT,
    turns: turns / nT,
    format_valid: fmt / nU,
    action_valid: act / nU,
    response_tokens: len / nU,
    reasoning_words: reasonLen / nU,
    // Graded over format-valid turns; 0 when none parsed (nothing faithful was said).
    fact_accuracy: nGraded > 0 ? fact / nGraded : 0,
    consistency: nGraded > 0 ? cons / nGraded : 0
  }
}
