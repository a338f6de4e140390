/**
 * Env contract (docs/design.md §4): gymnasium semantics, text in and text out.
 *
 * - `reset(seed)` seeds the env's own RNG: same seed ⇒ same episode on every runtime.
 * - `step(action)` takes the raw text inside `<answer>…</answer>`. An action that does not
 *   parse is not applied: `info.valid = false`, reward 0, the state is unchanged and the
 *   next observation says that no valid action was taken. The format penalty is applied
 *   by the rollout layer, not by the env. Any string (empty, 1 MB, binary) must not throw.
 * - `terminated`: the task ended (success or failure state); `truncated`: the action
 *   budget ran out. The budget is applied once by the harness, as Gymnasium's TimeLimit
 *   wrapper (core/env/time-limit.ts: `withTimeLimit(spec.make(options), spec.actionBudget)`);
 *   envs do not count steps and leave `truncated` false.
 * - Observations and instructions are plain text any LLM can read (numbers written as
 *   numbers, grids as RAGEN renders them); shaping text for one model's tokenizer is that
 *   policy plugin's business (plugins/tinylm/tokenizer.ts).
 */
import type { Schema } from "effect"
import type { Rng } from "./rng.ts"

export interface StepInfo {
  /** The task's success condition was reached on this step. */
  readonly success: boolean
  /** The action text parsed as a legal action. */
  readonly valid: boolean
  /** The action changed the state (e.g. not walking into a wall). */
  readonly effective: boolean
  readonly [key: string]: unknown
}

export interface StepResult {
  readonly observation: string
  readonly reward: number
  readonly terminated: boolean
  readonly truncated: boolean
  readonly info: StepInfo
}

/** What the scripted expert says for the current state. */
export interface TeacherStep {
  /** Reasoning text (goes between <think> and </think>). States the facts and the plan. */
  readonly reasoning: string
  /** Action text (goes between <answer> and </answer>). Possibly replaced under action noise. */
  readonly action: string
  /** The facts stated in `reasoning`, as canonical strings (e.g. "player 2 3"). */
  readonly facts: ReadonlyArray<string>
  /** The action the reasoning argues for (equals `action` unless action noise replaced it). */
  readonly intendedAction: string
}

export interface TeacherOptions {
  /** Action noise ε: with probability ε the action is replaced by a random valid one. */
  readonly epsilon: number
  /** Reasoning noise in [0,1]: how much wording and order of the reasoning vary. */
  readonly reasoningNoise: number
  /** Actions left in the episode's budget (filled in by the time-limit wrapper); teachers that plan under uncertainty use it. */
  readonly stepsLeft?: number
}

export interface ReasoningGrade {
  /** Share of facts stated in the reasoning that are true of the state (0 when none parse). */
  readonly factAccuracy: number
  /** 1 when the action follows from the stated plan, else 0 (fractional allowed). */
  readonly consistency: number
}

export interface Env<State = unknown> {
  readonly id: string
  /** Start a new episode; returns the first observation. */
  reset(seed: number): string
  step(action: string): StepResult
  /**
   * Optional async twins for envs backed by a remote server (SearchQA retriever, WebShop):
   * when present, the rollout awaits these instead of calling `reset`/`step`, and the sync
   * methods of such an env may throw, telling the caller to use the async ones.
   */
  resetAsync?(seed: number): Promise<string>
  stepAsync?(action: string): Promise<StepResult>
  /** The current state (an immutable snapshot) for teachers and graders. */
  state(): State
  /** The scripted expert's step for the current state. `rng` drives noise only. */
  teach(options: TeacherOptions, rng: Rng): TeacherStep
  /** Are the stated facts true of `state`, and does `action` follow from the stated plan? */
  gradeReasoning(state: State, reasoning: string, action: string): ReasoningGrade
  /** A uniformly random valid action for the current state (random-policy baselines, benchmarks). */
  randomAction(rng: Rng): string
  /** Whether the episode has ended (terminated; or truncated, for the time-limit wrapper). */
  readonly done: boolean
}

/** An option naming a file or a URL: its path in the options and which of the two. */
export interface ExternalOption {
  readonly path: ReadonlyArray<string>
  readonly kind: "file" | "url"
}

export interface EnvSpec<Options = any> {
  /** Versioned local id, e.g. "sokoban-v1" (the registry namespaces it by plugin). */
  readonly id: string
  readonly description: string
  /** Schema of the options; decoding fills defaults (the paper's). */
  readonly options: Schema.Codec<Options, any>
  /** Max turns per episode (the rollout's turn limit). */
  readonly maxTurns: number
  /** Per-trajectory action budget (docs/design.md §3), applied by the harness's time-limit wrapper. */
  readonly actionBudget: number
  /** The action budget when it depends on the options (MetaMathQA: maxAttempts); default actionBudget. */
  actionBudgetOf?(options: Options): number
  /** Whether the default per-turn prompt is the current state only (grid envs, single-turn tasks). */
  readonly markov: boolean
  /**
   * What identifies the instance in any observation of its episodes, the parts that move taken
   * out (a map without its player, a level's walls and targets without boxes and player), so that
   * validation instances are disjoint from training ones state by state (core/env/instance-split.ts).
   * Default: the observation itself (a problem's text).
   */
  instanceKey?(observation: string): string
  /** The trainer's default generation cap per turn (tokens) when the teacher's completions need more than 64. */
  readonly maxTokens?: number
  /**
   * Options that name a file or a URL (a dataset path, a retrieval server). They are operator
   * settings: the env server takes them from its own command line and a client only names one;
   * `leaderboard verify` does not re-run configs that set them unless allowed.
   */
  readonly externalOptions?: ReadonlyArray<ExternalOption>
  /** Build an env instance from decoded options. */
  make(options: Options): Env
  /**
   * Words the observations, teacher reasoning and actions use (for word-level tokenizers). Grid
   * cells are listed as symbols; a rendered row ("_P_G") is not a word (plugins/tinylm's
   * tokenizer reads an unknown word by its characters).
   */
  vocabulary(options: Options): ReadonlyArray<string>
  /** Instructions shown once at the top of every prompt (task, legend, action grammar). */
  instructions(options: Options): string
}
