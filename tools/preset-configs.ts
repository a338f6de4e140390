/**
 * Prints, for every sweep preset, each run's id, label and canonical resolved config, one line per
 * run. Run ids hash the resolved config and the published reference set joins a user's runs by it,
 * so a refactor must leave this output byte-identical (docs/decisions.md#issue-24):
 *
 *   bun tools/preset-configs.ts > before.txt   # on the old commit
 *   bun tools/preset-configs.ts > after.txt    # on the new one
 *   cmp before.txt after.txt
 *
 * Modules are imported by path at run time, so the script runs on either side of a move of them;
 * adapt the paths when the presets' loader moves.
 */
import { Effect } from "effect"

const root = new URL("..", import.meta.url).pathname
const { presetNames, loadSpec } = await import(`${root}core/sweep/spec.ts`)
const { expandGrid } = await import(`${root}core/sweep/grid.ts`)
const registry = await import(`${root}core/registry.ts`)
// Before docs/decisions.md#issue-24 the layer was a static of the Registry class.
const registryLayerFrom = registry.registryLayerFrom ?? ((p: unknown) => registry.Registry.layerFrom(p))
const { builtinPlugins } = await import(`${root}builtins.ts`)
const { canonicalJson } = await import(`${root}core/hash.ts`)

const data = await Effect.runPromise(registry.buildRegistry(builtinPlugins))
const names = presetNames(data) as string[]
// An empty list would make the comparison pass while checking nothing.
if (names.length === 0) throw new Error("no preset found: has presetNames' signature changed?")
const lines: string[] = []
for (const name of names) {
  const grid = Effect.gen(function* () {
    return yield* expandGrid(yield* loadSpec(name, data))
  }).pipe(Effect.provide(registryLayerFrom(builtinPlugins)))
  const runs = (await Effect.runPromise(grid as Effect.Effect<any[]>)) as Array<{ runId: string; label: string; config: unknown }>
  for (const r of runs) lines.push(`${name} ${r.runId} ${r.label} ${canonicalJson(r.config)}`)
}
process.stdout.write(lines.join("\n") + "\n")
