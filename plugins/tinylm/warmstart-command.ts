/**
 * `ragen-bench warmstart build <id...> | --all`: train shipped warm starts from their recipes
 * (plugins/tinylm/warmstarts/recipes.ts) through the trainer's own SFT warm start, write the
 * checkpoints (weights and tokenizer, no optimizer state) next to the manifest and their entries:
 * hash, code version, kernels, the SFT report, step-0 validation success against the ε = 0
 * teacher's, and the hash of the recipe's first steps on the JS kernels (checked by the tests on
 * any CPU). `ragen-bench warmstart check`: every manifest entry's file against its hash.
 */
import { Console, Effect } from "effect"
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  attemptPromise,
  buildRegistry,
  canonicalJson,
  codeVersion,
  defineCommand,
  initialPolicy,
  Registry,
  type RegistryData,
  registryLayerOf,
  resolveSetup,
  runtimeInfo,
  samplingRng,
  sftOnTeacher,
  sha256Hex,
  tempLabel,
  type TrainSetup,
  UsageError,
  validate,
  writeFileAtomic
} from "../../core/host.ts"
import { RECIPES, type WarmStartRecipe } from "./warmstarts/recipes.ts"
import { type ManifestEntry, MANIFEST_PATH, readManifest, shippedWarmStarts, WARMSTART_DIR } from "./warm-starts.ts"
import { teacherSuccess } from "./validate.ts"

/** SFT steps of the prefix check (the recipe's first steps, JS kernels). */
export const PREFIX_STEPS = 2

/**
 * The run config a recipe trains under (seed 1: the validation stream of a run with seed 1). A
 * staged recipe loads its `from` start (hash-checked) instead of training the first stage again.
 */
export const recipeConfig = (r: WarmStartRecipe, over: { kernels?: string; sftSteps?: number } = {}) => ({
  env: r.env,
  envOptions: r.envOptions,
  policy: "tinylm",
  policyOptions: { ...r.policyOptions, ...(over.kernels ? { kernels: over.kernels } : {}) },
  seed: 1,
  train: { ...r.train, ...(r.stage ? { sftSteps: 0, warmStart: r.stage.from } : { ...(over.sftSteps ? { sftSteps: over.sftSteps } : {}), warmStart: "none" }), diagEvery: 0 }
})

/** The recipe's policy: its SFT, or its `from` start and the later stage (`steps` of it, when given). */
const trained = (r: WarmStartRecipe, s: TrainSetup, cacheDir: string, log: (l: string) => void, steps?: number) =>
  attemptPromise(async () => {
    const { policy, sft } = await initialPolicy(s, cacheDir, log)
    if (!r.stage) return { policy, sft }
    if (!sft) throw new UsageError({ field: r.id, message: `recipe ${r.id}: its start ${r.stage.from} has no SFT report in the manifest` })
    const n = steps ?? r.stage.steps
    // The prefix check runs the stage's first steps, which the cooldown does not reach.
    const st = await sftOnTeacher(s, policy, { steps: n, lr: r.stage.lr, cooldown: steps === undefined ? r.stage.cooldown : 0 }, undefined, log)
    log(`sft stage 2: ${st.steps} steps from ${r.stage.from}, loss ${st.loss.toFixed(4)}, held-out token acc ${st.heldOutAcc.toFixed(3)}, ${st.seconds.toFixed(1)} s`)
    // The file records the optimizer's step count even without its state: every shipped start records 0.
    policy.resetOptimizer?.()
    // Steps and seconds of both stages: the start's whole cost.
    return { policy, sft: { steps: sft.steps + st.steps, loss: st.loss, heldOutAcc: st.heldOutAcc, seconds: sft.seconds + st.seconds } }
  })

/** The recipe's first PREFIX_STEPS SFT steps (of its last stage) on the JS kernels: SHA-256 of the weights file. */
export const prefixHash = (r: WarmStartRecipe) =>
  Effect.gen(function* () {
    const s = yield* resolveSetup(recipeConfig(r, { kernels: "js", sftSteps: PREFIX_STEPS }))
    const dir = mkdtempSync(join(tmpdir(), "ragen-warmstart-prefix-"))
    try {
      const { policy } = yield* trained(r, s, dir, () => {}, PREFIX_STEPS)
      const path = join(dir, "prefix.safetensors")
      yield* attemptPromise(() => policy.save(path, { optimizer: false }))
      return sha256Hex(readFileSync(path))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

const withoutKernels = (o: Record<string, unknown>): Record<string, unknown> => {
  const { kernels: _k, ...rest } = o
  return rest
}

const build = (r: WarmStartRecipe, cacheDir: string) =>
  Effect.gen(function* () {
    const s = yield* resolveSetup(recipeConfig(r))
    yield* Console.log(`${r.id}: ${r.description}`)
    const { policy, sft } = yield* trained(r, s, cacheDir, (l) => console.log(`  ${l}`))
    if (!sft) return yield* new UsageError({ field: r.id, message: `recipe ${r.id} trained no SFT (sftSteps 0?)` })
    const kernels = String(runtimeInfo().notes?.kernels ?? "unknown")
    const file = `${r.id}.safetensors`
    const tmp = join(WARMSTART_DIR, `${file}.tmp-${process.pid}`)
    yield* attemptPromise(() => policy.save(tmp, { optimizer: false }))
    const bytes = readFileSync(tmp)
    renameSync(tmp, join(WARMSTART_DIR, file))
    const val = yield* attemptPromise(() => validate(policy, s.rollout, s.opts, (...l) => samplingRng(s, ...l), 0))
    const success = Object.fromEntries(s.opts.valTemperatures.map((T) => [tempLabel(T), val[`val/success@${tempLabel(T)}`] ?? 0]))
    const teacher = yield* attemptPromise(() => teacherSuccess(s.spec, s.envOptions, s.opts.valSeeds, 1))
    const prefix = yield* prefixHash(r)
    const cfg = s.config
    const entry: ManifestEntry = {
      id: r.id,
      description: r.description,
      env: cfg.env,
      envOptions: cfg.envOptions,
      policy: cfg.policy,
      policyOptions: withoutKernels(cfg.policyOptions as Record<string, unknown>),
      recipe: { ...(cfg.train as Record<string, unknown>), ...(r.stage ? { stage: r.stage } : {}) },
      file,
      sha256: sha256Hex(bytes),
      bytes: bytes.length,
      codeVersion: codeVersion(),
      kernels,
      builtAt: new Date().toISOString(),
      report: sft,
      validation: { seeds: s.opts.valSeeds, success, teacherSuccess: teacher },
      prefix: { steps: PREFIX_STEPS, kernels: "js", sha256: prefix }
    }
    yield* Console.log(
      `  ${file}: ${bytes.length} bytes, sha256 ${entry.sha256.slice(0, 12)}; validation success ${Object.entries(success)
        .map(([T, v]) => `${v.toFixed(3)} at T=${T}`)
        .join(", ")}; teacher ${teacher.toFixed(3)}`
    )
    return entry
  })

/**
 * The registry with this plugin's warm starts as the manifest now lists them: the registry read
 * the manifest when the plugins loaded, and a staged recipe continues a start that this command
 * may have built since (`build <id> <id>-stage2`, `build --all`).
 */
export const withShippedWarmStarts = (data: RegistryData, plugin: string, warmstarts = shippedWarmStarts()) => buildRegistry(data.plugins.map((p) => (p.name === plugin ? { ...p, warmstarts } : p)))

export default defineCommand({
  pattern: "warmstart <action> [...ids]",
  description: "Build or check the shipped warm starts (plugins/tinylm/warmstarts/): build <id...> | build --all | check",
  options: [
    { flags: "--all", description: "build: every recipe" },
    { flags: "--cache <dir>", description: "build: SFT cache folder (the trainer's .sft-cache; a cached recipe is not trained again)", default: "runs/warmstart-build" }
  ],
  examples: ["ragen-bench warmstart check", "ragen-bench warmstart build frozenlake-tiny", "ragen-bench warmstart build --all"],
  run: ([actionArg, idsArg], opts) =>
    Effect.gen(function* () {
      const action = String(actionArg)
      const manifest = readManifest()
      if (action === "check") {
        if (manifest.warmstarts.length === 0) return yield* new UsageError({ field: "warmstart", message: `no warm starts in ${MANIFEST_PATH}; build them with: ragen-bench warmstart build --all` })
        let bad = 0
        for (const e of manifest.warmstarts) {
          const path = join(WARMSTART_DIR, e.file)
          const got = existsSync(path) ? sha256Hex(readFileSync(path)) : "missing"
          if (got !== e.sha256) bad++
          yield* Console.log(
            `${got === e.sha256 ? "ok " : "BAD"} ${e.id}@${e.sha256.slice(0, 12)}  ${e.env}  success ${JSON.stringify(e.validation.success)}  teacher ${e.validation.teacherSuccess}${got === e.sha256 ? "" : `  (file: ${got.slice(0, 12)})`}`
          )
        }
        if (bad > 0) return yield* new UsageError({ field: "warmstart", message: `${bad} warm start file(s) do not match the manifest; rebuild them (ragen-bench warmstart build <id>)` })
        return
      }
      if (action !== "build") return yield* new UsageError({ field: "action", message: `unknown action "${action}"; use build or check` })
      const ids = ((idsArg ?? []) as unknown[]).map(String)
      const chosen = opts.all ? RECIPES : ids.map((id) => RECIPES.find((r) => r.id === id))
      const unknown = ids.filter((id) => !RECIPES.some((r) => r.id === id))
      if (unknown.length > 0 || chosen.length === 0) {
        return yield* new UsageError({
          field: "ids",
          message: `${unknown.length > 0 ? `unknown recipe ${unknown.join(", ")}` : "name recipes or --all"}; recipes: ${RECIPES.map((r) => r.id).join(", ")}`
        })
      }
      let entries: ManifestEntry[] = [...manifest.warmstarts]
      for (const r of chosen as WarmStartRecipe[]) {
        const fresh = yield* withShippedWarmStarts((yield* Registry).data, "tinylm")
        const e = yield* build(r, String(opts.cache ?? "runs/warmstart-build")).pipe(Effect.provide(registryLayerOf(fresh)))
        // Read again: another build may have written its entry since this one started.
        entries = [...readManifest().warmstarts.filter((x) => x.id !== e.id), e].sort((a, b) => RECIPES.findIndex((r) => r.id === a.id) - RECIPES.findIndex((r) => r.id === b.id))
        // The manifest after each build: a long --all loses nothing when it is stopped.
        writeFileAtomic(MANIFEST_PATH, `${JSON.stringify(JSON.parse(canonicalJson({ format: "ragen-bench/warmstarts", version: 1, warmstarts: entries })), null, 2)}\n`)
      }
      yield* Console.log(`manifest: ${MANIFEST_PATH} (${entries.length} warm starts)`)
    })
})
