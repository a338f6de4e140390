import { describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { buildRegistry } from "../../core/registry.ts"
import { decodeSpec, loadSpec, presetNames } from "../../core/sweep/spec.ts"
import { presets } from "../../plugins/sweep/presets/index.ts"
import { runCli } from "../helpers/cli.ts"
import { smallSpec, tempDir } from "./helpers.ts"

const builtins = Effect.runSync(buildRegistry([...builtinPlugins]))
const fixture = (name: string): string => join(import.meta.dir, "..", "fixtures", "plugins", name)

const errorOf = (input: unknown): string => {
  const exit = Effect.runSyncExit(decodeSpec(input, "t.json"))
  if (Exit.isSuccess(exit)) throw new Error("expected a decode failure")
  return String((exit.cause as any).reasons?.[0]?.error?.message ?? JSON.stringify(exit.cause))
}

describe("sweep spec", () => {
  test("decodes with defaults", () => {
    const spec = Effect.runSync(decodeSpec({ name: "x", axes: { env: ["frozenlake"] } }, "t"))
    expect(spec.axes.algo).toEqual(["grpo"])
    expect(spec.axes.filter).toEqual(["none"])
    expect(spec.axes.seeds).toEqual([1, 2])
    expect(spec.budget.steps).toBe(100)
    expect(spec.description).toBe("")
  })

  test("bad fields are named in the error", () => {
    const msg = errorOf({ name: "x", axes: { env: [], seeds: [1.5], filter: [{ idd: "top-p" }] }, budget: { stepz: 3 } })
    expect(msg).toContain("t.json")
    expect(msg).toContain("axes.env")
    expect(msg).toContain("axes.seeds[0]: got 1.5; expected a whole number")
    expect(msg).toContain("axes.filter[0].idd: unknown option")
    expect(msg).toContain("budget.stepz")
  })

  test("missing name and non-positive P are errors", () => {
    expect(errorOf({ axes: { env: ["a"] } })).toContain("name: missing; this field is required")
    expect(errorOf({ name: "x", axes: { env: ["a"], PG: [{ P: 0, G: 4 }] } })).toContain("axes.PG[0].P")
  })

  test("loads JSON, YAML and .ts files and presets by name", async () => {
    const dir = tempDir("spec")
    writeFileSync(join(dir, "s.json"), JSON.stringify(smallSpec()))
    writeFileSync(join(dir, "s.yaml"), "name: small\naxes:\n  env: [frozenlake]\n  filter:\n    - none\n    - id: top-p\n      options: { p: 0.9 }\nbudget:\n  steps: 5\n")
    writeFileSync(join(dir, "s.ts"), `export default { name: "ts", axes: { env: ["sokoban"] } }\n`)
    const j = await Effect.runPromise(loadSpec(join(dir, "s.json")))
    const y = await Effect.runPromise(loadSpec(join(dir, "s.yaml")))
    const t = await Effect.runPromise(loadSpec(join(dir, "s.ts")))
    expect(j.axes.filter.length).toBe(3)
    expect(y.axes.filter[1]).toEqual({ id: "top-p", options: { p: 0.9 } })
    expect(y.budget.steps).toBe(5)
    expect(t.name).toBe("ts")
    const quick = await Effect.runPromise(loadSpec("quick", builtins))
    expect(quick.name).toBe("quick")
    expect((await Effect.runPromise(loadSpec("sweep/quick", builtins))).name).toBe("quick")
    for (const p of ["quick", "table4", "table5", "table6", "table7", "fig9", "fig6", "kl", "entropy"]) expect(presetNames(builtins)).toContain(p)
  })

  test("YAML with a duplicate key and an unknown preset are errors", async () => {
    const dir = tempDir("spec")
    writeFileSync(join(dir, "d.yaml"), "name: a\nname: b\naxes: { env: [x] }\n")
    const e1 = await Effect.runPromiseExit(loadSpec(join(dir, "d.yaml")))
    expect(Exit.isFailure(e1) && JSON.stringify(e1.cause)).toContain("does not parse")
    const e2 = await Effect.runPromiseExit(loadSpec("no-such-preset", builtins))
    expect(Exit.isFailure(e2) && JSON.stringify(e2.cause)).toContain("presets: collapse, entropy, fig3")
    const e3 = await Effect.runPromiseExit(loadSpec("quikc", builtins))
    expect(Exit.isFailure(e3) && JSON.stringify(e3.cause)).toContain("did you mean quick?")
  })

  test("the preset index lists every preset module of plugins/sweep/presets/, each under its file's name", () => {
    const dir = join(import.meta.dir, "..", "..", "plugins", "sweep", "presets")
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.startsWith("_") && f !== "index.ts")
    expect(presets.map((p) => `${p.name}.ts`).sort()).toEqual(files.sort())
    expect(builtins.entries.presets.map((e) => e.fullId)).toContain("sweep/standard")
  })

  test("a user's plugin ships its own preset; a misspelt name is one line naming the nearest; a clash names both plugins", () => {
    const dry = runCli(["sweep", "my-suite", "--dry-run", "--plugin", fixture("suite-preset.ts")])
    expect(dry.stderr).toBe("")
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain("sweep my-suite: 4 runs")
    expect(dry.stdout).toContain("frozenlake-v1-grpo-top-p-s2-")
    const typo = runCli(["sweep", "my-suit", "--dry-run", "--plugin", fixture("suite-preset.ts")])
    expect(typo.code).toBe(2)
    expect(typo.stderr.trim().split("\n")).toHaveLength(1)
    expect(typo.stderr).toContain('sweep spec "my-suit" is neither a file nor a preset; did you mean my-suite?')
    const clash = runCli(["sweep", "quick", "--dry-run", "--plugin", fixture("clashing-preset.ts")])
    expect(clash.code).toBe(2)
    expect(clash.stderr).toContain('preset "quick" is contributed by both plugin "sweep" and plugin "clash-preset"')
  }, 60_000)
})
