/**
 * Every shipped preset's runs start where the preset means them to: from a shipped warm start or
 * from their own SFT, never from scratch because `auto` fitted nothing (fig9's slipped FrozenLake
 * once did, and its success stayed 0).
 */
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { expandGrid } from "../../core/sweep/grid.ts"
import { decodeSpec, presetDir, presetNames } from "../../core/sweep/spec.ts"

test("no preset run falls through warmStart auto to a start from scratch", async () => {
  const names = presetNames()
  expect(names).toContain("fig9")
  const fromScratch: string[] = []
  for (const name of names) {
    const mod = await import(`${presetDir}/${name}.ts`)
    const program = Effect.gen(function* () {
      const runs = yield* expandGrid(yield* decodeSpec(mod.default, name))
      expect(runs.length).toBeGreaterThan(0)
      for (const r of runs) if (r.notice) fromScratch.push(`${name}: ${r.label}`)
    })
    await Effect.runPromise(program.pipe(Effect.provide(registryLayerFrom([...builtinPlugins]))))
  }
  expect(fromScratch).toEqual([])
}, 60_000)
