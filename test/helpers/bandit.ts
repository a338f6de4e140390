/**
 * A trivially learnable env for trainer tests: a lamp shows "red" or "green" (drawn from the
 * seed); pulling "left" on red or "right" on green is correct. `length` correct pulls in a row
 * succeed (reward 1); a wrong pull ends the episode with 0. Invalid actions are not applied and
 * count against the action budget, as the Env contract says.
 */
import { Schema } from "effect"
import type { Env, EnvSpec } from "../../core/contracts/index.ts"
import { derive, Rng } from "../../core/rng.ts"

interface BanditState {
  readonly lamp: "red" | "green"
  readonly pulls: number
  readonly steps: number
}

export const banditSpec = (o: { length?: number; actionBudget?: number; maxTurns?: number; id?: string } = {}): EnvSpec<{}> => {
  const length = o.length ?? 1
  const budget = o.actionBudget ?? length
  return {
    id: o.id ?? "bandit-v1",
    description: "Two-armed contextual bandit (tests only)",
    options: Schema.Struct({}),
    maxTurns: o.maxTurns ?? length,
    actionBudget: budget,
    markov: true,
    vocabulary: () => ["lamp", "red", "green", "left", "right", "go"],
    instructions: () => "pull left on red and right on green",
    make: (): Env<BanditState> => {
      let rng = new Rng(0)
      let s: BanditState = { lamp: "red", pulls: 0, steps: 0 }
      let done = false
      const obs = (note = "") => `${note}lamp ${s.lamp}`
      return {
        id: o.id ?? "bandit-v1",
        get done() {
          return done
        },
        reset(seed) {
          rng = derive(seed, "bandit")
          s = { lamp: rng.bool() ? "red" : "green", pulls: 0, steps: 0 }
          done = false
          return obs()
        },
        step(action) {
          const a = action.trim().toLowerCase()
          const steps = s.steps + 1
          const valid = a === "left" || a === "right"
          if (!valid) {
            s = { ...s, steps }
            const truncated = steps >= budget
            done = truncated
            return { observation: obs("no valid action was taken\n"), reward: 0, terminated: false, truncated, info: { success: false, valid, effective: false } }
          }
          const correct = (a === "left") === (s.lamp === "red")
          const pulls = s.pulls + (correct ? 1 : 0)
          const success = correct && pulls >= length
          const terminated = !correct || success
          s = { lamp: rng.bool() ? "red" : "green", pulls, steps }
          const truncated = !terminated && steps >= budget
          done = terminated || truncated
          return { observation: obs(), reward: success ? 1 : 0, terminated, truncated, info: { success, valid, effective: true } }
        },
        state: () => s,
        teach(opt, r) {
          const intended = s.lamp === "red" ? "left" : "right"
          const action = r.bool(opt.epsilon) ? r.pick(["left", "right"]) : intended
          return { reasoning: `lamp ${s.lamp} go ${intended}`, action, facts: [`lamp ${s.lamp}`], intendedAction: intended }
        },
        gradeReasoning(state, reasoning, action) {
          const m = /lamp (red|green)/.exec(reasoning)
          const plan = /go (left|right)/.exec(reasoning)
          return {
            factAccuracy: m ? (m[1] === state.lamp ? 1 : 0) : 0,
            consistency: plan ? (plan[1] === action.trim().toLowerCase() ? 1 : 0) : 0
          }
        },
        randomAction: (r) => r.pick(["left", "right"])
      }
    }
  }
}
