/**
 * The tinylm plugin's shipped warm starts: plugins/tinylm/warmstarts/manifest.json (written by
 * `ragen-bench warmstart build`, never by hand) and the checkpoints next to it. The manifest is
 * decoded strictly; a missing manifest means no warm starts (the trainer then starts fresh).
 */
import { Schema } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { WarmStart } from "../../core/contracts/index.ts"
import { decodeSync } from "../../core/host.ts"

export const WARMSTART_DIR = join(dirname(fileURLToPath(import.meta.url)), "warmstarts")
export const MANIFEST_PATH = join(WARMSTART_DIR, "manifest.json")

const Num = Schema.Finite
const Entry = Schema.Struct({
  id: Schema.String,
  description: Schema.String,
  env: Schema.String,
  envOptions: Schema.Unknown,
  policy: Schema.String,
  policyOptions: Schema.Unknown,
  recipe: Schema.Record(Schema.String, Schema.Unknown),
  file: Schema.String,
  sha256: Schema.String,
  bytes: Num,
  codeVersion: Schema.String,
  /** The kernel backend and ISA the checkpoint was trained on (bit-exact rebuilds need the same). */
  kernels: Schema.String,
  builtAt: Schema.String,
  report: Schema.Struct({ steps: Num, loss: Num, heldOutAcc: Num, seconds: Num }),
  /** Validation at the trainer's step 0 (seed 1) on the fixed validation instances, and the ε = 0 teacher's success there. */
  validation: Schema.Struct({ seeds: Num, success: Schema.Record(Schema.String, Num), teacherSuccess: Num }),
  /** The recipe's first steps on the JS kernels (any CPU): SHA-256 of the weights after `steps` SFT steps. */
  prefix: Schema.Struct({ steps: Num, kernels: Schema.String, sha256: Schema.String })
})
export type ManifestEntry = typeof Entry.Type
export const Manifest = Schema.Struct({ format: Schema.Literal("ragen-bench/warmstarts"), version: Schema.Literal(1), warmstarts: Schema.Array(Entry) })
export type Manifest = typeof Manifest.Type

export const readManifest = (): Manifest => {
  if (!existsSync(MANIFEST_PATH)) return { format: "ragen-bench/warmstarts", version: 1, warmstarts: [] }
  const d = decodeSync(Manifest, JSON.parse(readFileSync(MANIFEST_PATH, "utf8")))
  if (!d.ok) throw new Error(`${MANIFEST_PATH}: ${d.message}`)
  return d.value
}

export const toWarmStart = (e: ManifestEntry): WarmStart => ({
  id: e.id,
  description: `${e.description}: validation success ${Object.entries(e.validation.success)
    .map(([T, v]) => `${v.toFixed(3)} at T=${T}`)
    .join(", ")} (teacher ${e.validation.teacherSuccess.toFixed(3)})`,
  env: e.env,
  envOptions: e.envOptions,
  policy: e.policy,
  policyOptions: e.policyOptions,
  recipe: e.recipe,
  sha256: e.sha256,
  path: join(WARMSTART_DIR, e.file),
  report: e.report
})

export const shippedWarmStarts = (): WarmStart[] => readManifest().warmstarts.map(toWarmStart)
