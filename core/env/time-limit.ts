/**
 * The action budget, applied once by the harness as Gymnasium's TimeLimit wrapper does
 * (gymnasium/wrappers/common.py, `TimeLimit`): the wrapper counts every step (valid or not)
 * and sets `truncated` when the count reaches the budget; envs themselves never count steps.
 * One difference from Gymnasium: a step that terminates the episode is not also marked
 * truncated (our contract keeps the two exclusive, as the envs did before the wrapper).
 *
 * Every path that steps an env for an episode (rollout, env server sessions, SFT traces,
 * validation, `play`) wraps it with `withTimeLimit(spec.make(options), budget)`.
 */
import type { Env, EnvSpec, StepResult, TeacherOptions, TeacherStep } from "../contracts/env.ts"
import type { Rng } from "../rng.ts"

export interface TimeLimitedEnv<State = unknown> extends Env<State> {
  /** The wrapped env (what `spec.make` returned). */
  readonly inner: Env<State>
  /** Steps taken in this episode (every `step` call before the end counts). */
  readonly elapsedSteps: number
  readonly maxEpisodeSteps: number
}

class TimeLimit<State> implements TimeLimitedEnv<State> {
  elapsedSteps = 0
  private truncated = false
  private last = ""
  readonly resetAsync?: (seed: number) => Promise<string>
  readonly stepAsync?: (action: string) => Promise<StepResult>

  constructor(
    readonly inner: Env<State>,
    readonly maxEpisodeSteps: number
  ) {
    if (!Number.isInteger(maxEpisodeSteps) || maxEpisodeSteps < 1) throw new RangeError(`withTimeLimit: budget must be an integer ≥ 1, got ${maxEpisodeSteps}`)
    // Only envs with async twins get them, so callers' `env.stepAsync ? …` checks still hold.
    if (inner.resetAsync) this.resetAsync = async (seed) => this.started(await inner.resetAsync!(seed))
    if (inner.stepAsync) {
      this.stepAsync = async (action) => {
        if (this.done) return this.ended()
        return this.limit(await inner.stepAsync!(action))
      }
    }
  }

  get id(): string {
    return this.inner.id
  }

  get done(): boolean {
    return this.truncated || this.inner.done
  }

  private started(observation: string): string {
    this.elapsedSteps = 0
    this.truncated = false
    this.last = observation
    return observation
  }

  /** After the end nothing is applied (the inner env may not be done when we truncated it). */
  private ended(): StepResult {
    return { observation: this.last, reward: 0, terminated: this.inner.done, truncated: this.truncated, info: { success: false, valid: false, effective: false } }
  }

  private limit(r: StepResult): StepResult {
    this.elapsedSteps++
    if (!r.terminated && this.elapsedSteps >= this.maxEpisodeSteps) this.truncated = true
    this.last = r.observation
    return this.truncated && !r.truncated ? { ...r, truncated: true } : r
  }

  reset(seed: number): string {
    return this.started(this.inner.reset(seed))
  }

  step(action: string): StepResult {
    if (this.done) return this.ended()
    return this.limit(this.inner.step(action))
  }

  state(): State {
    return this.inner.state()
  }

  /** The teacher may plan for the steps left (FrozenLake's max-success policy under slip). */
  teach(options: TeacherOptions, rng: Rng): TeacherStep {
    return this.inner.teach({ ...options, stepsLeft: Math.max(1, this.maxEpisodeSteps - this.elapsedSteps) }, rng)
  }

  gradeReasoning(state: State, reasoning: string, action: string) {
    return this.inner.gradeReasoning(state, reasoning, action)
  }

  randomAction(rng: Rng): string {
    return this.inner.randomAction(rng)
  }
}

/** Wrap an env so that its episode is truncated after `budget` steps (Gymnasium's TimeLimit). */
export const withTimeLimit = <State>(env: Env<State>, budget: number): TimeLimitedEnv<State> => new TimeLimit(env, budget)

/** The action budget of an env under decoded options: the spec's, or what its options make it. */
export const actionBudgetFor = <O>(spec: EnvSpec<O>, options: O): number => spec.actionBudgetOf?.(options) ?? spec.actionBudget
