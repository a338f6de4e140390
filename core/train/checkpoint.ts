/**
 * Checkpoints of a run (atomic): checkpoints/step-NNNNNN.ckpt (the policy's own save: parameters,
 * optimizer, tokenizer), step-NNNNNN.state.json (trainer state: step, MI EMA states, wall time,
 * best validation), and latest.json naming the newest pair, written last so that a kill between
 * writes leaves the previous checkpoint in force. All sampling streams are derived from
 * (run seed, step), so (seed, step) is the whole RNG state.
 */
import { Schema } from "effect"
import { existsSync, readdirSync, renameSync, rmSync } from "node:fs"
import { basename, isAbsolute, join, relative, resolve } from "node:path"
import { FileFormatError } from "../errors.ts"
import { readRegularFileSync } from "../files.ts"
import { decodeSync } from "../schema/decode.ts"
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
  const old = readdirSync(dir)
    .filter((f) => /^step-\d{6}\.ckpt$/.test(f))
    .sort()
  for (const f of old.slice(0, Math.max(0, old.length - keep))) {
    rmSync(join(dir, f), { force: true })
    rmSync(join(dir, f.replace(".ckpt", ".state.json")), { force: true })
  }
}

const MAX_JSON_BYTES = 1 << 20

const Latest = Schema.Struct({
  step: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  policy: Schema.String,
  state: Schema.String
})

/** trainer state as saveCheckpoint writes it; a file with wrong types is refused before a run resumes from it. */
export const TrainerStateSchema = Schema.Struct({
  step: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  wallSeconds: Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)),
  peakValSuccess: Schema.NullOr(Schema.Finite),
  finalValSuccess: Schema.NullOr(Schema.Finite),
  miEma: Schema.Record(Schema.String, Schema.Struct({ sigma: Schema.optional(Schema.Finite) }))
})

const RESUME_HINT = "start the run over with --fresh, or restore the checkpoints folder"

const readJson = (path: string, what: string): unknown => {
  let text: string
  try {
    text = new TextDecoder().decode(readRegularFileSync(path, MAX_JSON_BYTES))
  } catch (e) {
    throw new FileFormatError({ path, message: `cannot resume: ${what} ${(e as Error).message}; ${RESUME_HINT}` })
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new FileFormatError({ path, message: `cannot resume: ${what} ${path} is not valid JSON (a torn or edited file); ${RESUME_HINT}` })
  }
}

/** `name` from latest.json as a file directly inside `dir`, or an error: it cannot point elsewhere. */
const insideDir = (dir: string, name: string, field: string, latestPath: string): string => {
  const full = resolve(dir, name)
  const rel = relative(resolve(dir), full)
  if (name === "" || isAbsolute(name) || rel === "" || rel.startsWith("..") || isAbsolute(rel) || rel !== basename(rel) || !/^step-\d{6,}\.(ckpt|state\.json)$/.test(rel)) {
    throw new FileFormatError({
      path: latestPath,
      message: `cannot resume: ${latestPath} field ${field} must name a step-NNNNNN file inside ${dir}, got ${JSON.stringify(name.slice(0, 120))}; ${RESUME_HINT}`
    })
  }
  return join(dir, rel)
}

/**
 * The checkpoint latest.json names, validated: latest.json and the state file decode through
 * their schemas, both names stay inside the checkpoints folder, and the step numbers agree.
 * undefined when there is no latest.json; otherwise a FileFormatError (thrown) whose message is
 * one line naming the file and the fix. The policy file itself is checked when it is loaded
 * (plugins/tinylm/safetensors.ts).
 */
export const latestCheckpoint = (dir: string): { policyPath: string; state: TrainerState } | undefined => {
  const p = join(dir, "latest.json")
  if (!existsSync(p)) return undefined
  const l = decodeSync(Latest, readJson(p, "latest.json"), { strict: false })
  if (!l.ok) throw new FileFormatError({ path: p, message: `cannot resume: ${p}: ${l.message}; ${RESUME_HINT}` })
  const policyPath = insideDir(dir, l.value.policy, "policy", p)
  const statePath = insideDir(dir, l.value.state, "state", p)
  if (!existsSync(policyPath)) throw new FileFormatError({ path: policyPath, message: `cannot resume: ${p} names ${l.value.policy}, which is missing; ${RESUME_HINT}` })
  const st = decodeSync(TrainerStateSchema, readJson(statePath, "the trainer state"), { strict: false })
  if (!st.ok) throw new FileFormatError({ path: statePath, message: `cannot resume: ${statePath}: ${st.message}; ${RESUME_HINT}` })
  if (st.value.step !== l.value.step) {
    throw new FileFormatError({ path: statePath, message: `cannot resume: ${statePath} is at step ${st.value.step} but latest.json says ${l.value.step}; ${RESUME_HINT}` })
  }
  return { policyPath, state: st.value }
}
