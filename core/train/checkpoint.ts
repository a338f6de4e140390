/**
 * Checkpoints of a run (atomic): checkpoints/step-NNNNNN.ckpt (the policy's own save: parameters,
 * optimizer, tokenizer), step-NNNNNN.state.json (trainer state: step, MI EMA states, wall time,
 * best validation), and latest.json naming the newest pair, written last so that a kill between
 * writes leaves the previous checkpoint in force. All sampling streams are derived from
 * (run seed, step), so (seed, step) is the whole RNG state.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs"
import { join } from "node:path"
import type { TrainablePolicy } from "../contracts/index.ts"
import { writeJsonAtomic } from "../results/atomic.ts"

export interface TrainerState {
  readonly step: number
  readonly wallSeconds: number
  readonly peakValSuccess: number | null
  readonly finalValSuccess: number | null
  readonly miEma: Record<string, { sigma?: number }>
}

const name = (step: number) => `step-${String(step).padStart(6, "0")}`

export const saveCheckpoint = async (dir: string, policy: TrainablePolicy, state: TrainerState, keep: number): Promise<void> => {
  const base = name(state.step)
  const tmp = join(dir, `${base}.ckpt.tmp-${process.pid}`)
  const { mkdirSync } = await import("node:fs")
  mkdirSync(dir, { recursive: true })
  await policy.save(tmp)
  renameSync(tmp, join(dir, `${base}.ckpt`))
  writeJsonAtomic(join(dir, `${base}.state.json`), state)
  writeJsonAtomic(join(dir, "latest.json"), { step: state.step, policy: `${base}.ckpt`, state: `${base}.state.json` })
  const old = readdirSync(dir).filter((f) => /^step-\d{6}\.ckpt$/.test(f)).sort()
  for (const f of old.slice(0, Math.max(0, old.length - keep))) {
    rmSync(join(dir, f), { force: true })
    rmSync(join(dir, f.replace(".ckpt", ".state.json")), { force: true })
  }
}

export const latestCheckpoint = (dir: string): { policyPath: string; state: TrainerState } | undefined => {
  const p = join(dir, "latest.json")
  if (!existsSync(p)) return undefined
  const l = JSON.parse(readFileSync(p, "utf8")) as { policy: string; state: string }
  return { policyPath: join(dir, l.policy), state: JSON.parse(readFileSync(join(dir, l.state), "utf8")) as TrainerState }
}
