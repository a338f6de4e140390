/**
 * Shipped warm starts (docs/decisions.md#issue-17): every manifest entry's file matches its hash, every recipe is
 * built, each recipe's first SFT steps reproduce bit for bit on the JS kernels (any CPU), and runs
 * name a warm start by id and hash: `auto` picks the one trained for the run, a changed hash is refused.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { sha256Hex } from "../../core/hash.ts"
import { buildRegistry, lookupEntry, registryLayerFrom } from "../../core/registry.ts"
import { UnknownIdError } from "../../core/errors.ts"
import { resolveSetup } from "../../core/train/setup.ts"
import { checkWarmStartFile } from "../../core/train/warm-starts.ts"
import { readManifest, toWarmStart, WARMSTART_DIR } from "../../plugins/tinylm/warm-starts.ts"
import { prefixHash, withShippedWarmStarts } from "../../plugins/tinylm/warmstart-command.ts"
import { RECIPES } from "../../plugins/tinylm/warmstarts/recipes.ts"

const manifest = readManifest()
const setup = (raw: Record<string, unknown>) => Effect.runPromise(resolveSetup(raw).pipe(Effect.provide(registryLayerFrom(builtinPlugins))))
const setupError = (raw: Record<string, unknown>) =>
  Effect.runPromise(
    resolveSetup(raw).pipe(
      Effect.flip,
      Effect.map((e) => e.message),
      Effect.provide(registryLayerFrom(builtinPlugins))
    )
  )

describe("shipped warm starts: files", () => {
  test("every recipe is built, and every file matches its manifest hash (a few MB in all)", () => {
    expect(manifest.warmstarts.map((e) => e.id).sort()).toEqual(RECIPES.map((r) => r.id).sort())
    let total = 0
    for (const e of manifest.warmstarts) {
      const bytes = readFileSync(join(WARMSTART_DIR, e.file))
      expect(sha256Hex(bytes)).toBe(e.sha256)
      expect(bytes.length).toBe(e.bytes)
      total += bytes.length
    }
    // Tiny-preset files of about 0.47 MB each (10 MiB: room for the arithmetic envs' second-stage and
    // half-SFT starts, experiments/arithmetic-sft/README.md).
    expect(total).toBeLessThan(10 * 1024 * 1024)
  })

  test("a file that does not match its hash is refused before use", () => {
    const e = manifest.warmstarts[0]!
    const dir = mkdtempSync(join(tmpdir(), "ragen-ws-"))
    const path = join(dir, e.file)
    copyFileSync(join(WARMSTART_DIR, e.file), path)
    const w = { ...toWarmStart(e), path }
    expect(() => checkWarmStartFile(w)).not.toThrow()
    const bytes = readFileSync(path)
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1
    writeFileSync(path, bytes)
    expect(() => checkWarmStartFile(w)).toThrow(/SHA-256/)
  })
})

describe("shipped warm starts: the recipe's first steps reproduce (JS kernels)", () => {
  for (const r of RECIPES) {
    test(r.id, async () => {
      const e = manifest.warmstarts.find((x) => x.id === r.id)
      expect(e).toBeDefined()
      expect(e!.prefix.kernels).toBe("js")
      expect(await Effect.runPromise(prefixHash(r).pipe(Effect.provide(registryLayerFrom(builtinPlugins))))).toBe(e!.prefix.sha256)
    }, 120_000)
  }
})

describe("shipped warm starts: runs name them by id and hash", () => {
  const fl = manifest.warmstarts.find((e) => e.id === "frozenlake-tiny")!
  const ref = `frozenlake-tiny@${fl.sha256.slice(0, 12)}`
  test("auto picks the env's warm start and records id@hash; sftSteps, init and none start otherwise", async () => {
    expect((await setup({ env: "frozenlake" })).config.train.warmStart).toBe(ref)
    expect((await setup({ env: "frozenlake", train: { sftSteps: 10 } })).config.train.warmStart).toBe("none")
    expect((await setup({ env: "frozenlake", train: { warmStart: "none" } })).config.train.warmStart).toBe("none")
    // Another prompt shape or env options: the shipped one does not fit, so auto starts fresh.
    expect((await setup({ env: "frozenlake", train: { context: "full" } })).config.train.warmStart).toBe("none")
    expect((await setup({ env: "frozenlake", envOptions: { size: 6 } })).config.train.warmStart).toBe("none")
    // Kernel backends do not change what a checkpoint is.
    expect((await setup({ env: "frozenlake", policyOptions: { kernels: "js" } })).config.train.warmStart).toBe(ref)
    expect((await setup({ env: "frozenlake", train: { warmStart: ref } })).warmStart?.sha256).toBe(fl.sha256)
  })

  test("a hash that is not the shipped file's, an unknown id, another env, or two starts are refused by name", async () => {
    expect(await setupError({ env: "frozenlake", train: { warmStart: "frozenlake-tiny@000000000000" } })).toMatch(/shipped checkpoint changed/)
    expect(await setupError({ env: "frozenlake", train: { warmStart: "frozen-tiny" } })).toMatch(/unknown warm start "frozen-tiny"; known: .*frozenlake-tiny/)
    expect(await setupError({ env: "sokoban", train: { warmStart: "frozenlake-tiny" } })).toMatch(/trained for envs\/frozenlake-v1/)
    expect(await setupError({ env: "frozenlake", train: { warmStart: "frozenlake-tiny", sftSteps: 10 } })).toMatch(/two starts/)
  })
})

describe("shipped warm starts: headroom starts (issue 25/26)", () => {
  const headroom = manifest.warmstarts.filter((e) => e.id.includes("-headroom"))

  test("each headroom start validates at 20–70% of its teacher's success (T = 0.5), with fewer SFT steps than the env's strong start", () => {
    expect(headroom.length).toBeGreaterThanOrEqual(4)
    for (const e of headroom) {
      const ratio = e.validation.success["0.5"]! / e.validation.teacherSuccess
      expect([e.id, ratio >= 0.2 && ratio <= 0.7]).toEqual([e.id, true])
      const strong = manifest.warmstarts.find((x) => x.env === e.env && !x.id.includes("-headroom"))
      expect(strong).toBeDefined()
      expect(Number(e.recipe.sftSteps)).toBeLessThan(Number(strong!.recipe.sftSteps))
    }
  })

  test("auto picks the strong start; a headroom start is named by id", async () => {
    const ws = manifest.warmstarts.find((e) => e.id === "webshop-v2-tiny")!
    expect((await setup({ env: "webshop" })).config.train.warmStart).toBe(`webshop-v2-tiny@${ws.sha256.slice(0, 12)}`)
    const h = manifest.warmstarts.find((e) => e.id === "frozenlake-tiny-headroom")!
    expect((await setup({ env: "frozenlake", train: { warmStart: "frozenlake-tiny-headroom" } })).warmStart?.sha256).toBe(h.sha256)
  })
})

describe("shipped warm starts: every env of the suite has one at ≥ 0.5 of its teacher (issue 26)", () => {
  test("sokoban, frozenlake, countdown, metamathqa (v1 and v2), searchqa and webshop-v2 each ship a start at ≥ 0.5 of the teacher (T = 0.5)", () => {
    const envs = ["envs/sokoban-v1", "envs/frozenlake-v1", "envs/countdown-v1", "envs/metamathqa-v1", "envs/metamathqa-v2", "envs/searchqa-v1", "envs/webshop-v2"]
    for (const env of envs) {
      const best = Math.max(...manifest.warmstarts.filter((e) => e.env === env).map((e) => e.validation.success["0.5"]! / e.validation.teacherSuccess))
      expect([env, best >= 0.5]).toEqual([env, true])
    }
  })

  test("a staged start names the start it continues by id and hash, and its report counts both stages", () => {
    const staged = RECIPES.filter((r) => r.stage)
    expect(staged.map((r) => r.id)).toEqual(["countdown-tiny-stage2", "metamathqa-tiny-stage2", "metamathqa-v2-tiny-stage2", "metamathqa-v2-tiny-half-stage2"])
    for (const r of staged) {
      const e = manifest.warmstarts.find((x) => x.id === r.id)!
      const from = manifest.warmstarts.find((x) => x.id === r.stage!.from)!
      expect(e.recipe.warmStart).toBe(`${from.id}@${from.sha256.slice(0, 12)}`)
      expect(e.recipe.stage).toEqual(r.stage)
      expect(e.report.steps).toBe(from.report.steps + r.stage!.steps)
      expect(e.report.seconds).toBeGreaterThan(from.report.seconds)
      expect(e.validation.success["0.5"]!).toBeGreaterThan(from.validation.success["0.5"]!)
    }
  })

  test("auto keeps the first-stage start (the standard suite's), a staged start is named by id", async () => {
    const cd = manifest.warmstarts.find((e) => e.id === "countdown-tiny")!
    expect((await setup({ env: "countdown" })).config.train.warmStart).toBe(`countdown-tiny@${cd.sha256.slice(0, 12)}`)
    const st = manifest.warmstarts.find((e) => e.id === "countdown-tiny-stage2")!
    expect((await setup({ env: "countdown", train: { warmStart: "countdown-tiny-stage2" } })).warmStart?.sha256).toBe(st.sha256)
    // "metamathqa" is v2, whose first start auto picks; v1 keeps its own.
    const v2 = manifest.warmstarts.find((e) => e.id === "metamathqa-v2-tiny")!
    const v1 = manifest.warmstarts.find((e) => e.id === "metamathqa-tiny")!
    expect((await setup({ env: "metamathqa" })).config.train.warmStart).toBe(`metamathqa-v2-tiny@${v2.sha256.slice(0, 12)}`)
    expect((await setup({ env: "metamathqa-v1" })).config.train.warmStart).toBe(`metamathqa-tiny@${v1.sha256.slice(0, 12)}`)
  })
})

describe("warmstart build: a staged recipe sees the start built before it in the same command", () => {
  test("the registry is rebuilt with the manifest's entries as they are now (a start added since load resolves)", async () => {
    const data = await Effect.runPromise(buildRegistry(builtinPlugins))
    const added = toWarmStart({ ...manifest.warmstarts[0]!, id: "just-built" })
    expect(lookupEntry(data, "warmstarts", "just-built")).toBeInstanceOf(UnknownIdError)
    const fresh = await Effect.runPromise(withShippedWarmStarts(data, "tinylm", [...manifest.warmstarts.map(toWarmStart), added]))
    const found = lookupEntry(fresh, "warmstarts", "just-built")
    expect(found).not.toBeInstanceOf(UnknownIdError)
    expect((found as { fullId: string }).fullId).toBe("tinylm/just-built")
    // Everything else is as it was.
    expect(fresh.entries.envs.map((e) => e.fullId)).toEqual(data.entries.envs.map((e) => e.fullId))
    expect(fresh.entries.warmstarts.length).toBe(data.entries.warmstarts.length + 1)
  })
})
