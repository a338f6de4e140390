// docs/sweeps.md's presets table is what `ragen-bench sweep presets` generates from the presets
// (docs/decisions.md#issue-28: the doc had described quick as GRPO, 2 envs, 12 runs; it is PPO, 3 envs, 48 runs).
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { BEGIN, END, presetTable, withPresetTable } from "../../plugins/sweep/presets-doc.ts"
import { root } from "../helpers/cli.ts"

describe("docs/sweeps.md presets", () => {
  test("the generated table is current (regenerate: ragen-bench sweep presets --write docs/sweeps.md)", async () => {
    const table = await Effect.runPromise(presetTable().pipe(Effect.provide(registryLayerFrom(builtinPlugins))))
    const doc = readFileSync(join(root, "docs", "sweeps.md"), "utf8")
    expect(doc.slice(doc.indexOf(BEGIN) + BEGIN.length, doc.indexOf(END)).trim()).toBe(table)
    const quick = table
      .split("\n")
      .find((l) => l.startsWith("| `quick` "))!
      .split(" | ")
    expect(quick.slice(2)).toEqual(["sokoban", "ppo", "5", "9", "40", "54 |"])
  }, 60_000)

  test("a doc without the markers is refused by name", () => {
    const r = Effect.runSyncExit(withPresetTable("# no section\n", "| t |", "x.md"))
    expect(JSON.stringify(r)).toContain("x.md has no generated-presets section")
  })
})
