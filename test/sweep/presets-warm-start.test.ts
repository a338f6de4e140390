/**
 * Every shipped preset's runs start where the preset means them to: from a shipped warm start or
 * from their own SFT, never from scratch because `auto` fitted nothing (fig9's slipped FrozenLake
 * once did, and its success stayed 0).
 */
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { Registry, registryLayerFrom } from "../../core/registry.ts"
import { expandGrid } from "../../core/sweep/grid.ts"
import { decodeSpec } from "../../core/sweep/spec.ts"

test("no preset run falls through warmStart auto to a start from scratch", async () => {
  const fromScratch: string[] = []
  const program = Effect.gen(function* () {
    const presets = (yield* Registry).list("presets")
    expect(presets.map((e) => e.localId)).toContain("fig9")
    for (const { localId: name, value } of presets) {
      const runs = yield* expandGrid(yield* decodeSpec(value, name))
      expect(runs.length).toBeGreaterThan(0)
      for (const r of runs) if (r.notice) fromScratch.push(`${name}: ${r.label}`)
    }
  })
  await Effect.runPromise(program.pipe(Effect.provide(registryLayerFrom([...builtinPlugins]))))
  expect(fromScratch).toEqual([])
}, 60_000)
