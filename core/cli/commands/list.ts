import { Console, Effect } from "effect"
import { UsageError } from "../../errors.ts"
import { descriptionOf, kinds, Registry } from "../../registry.ts"
import { defineCommand } from "../../contracts/plugin.ts"

export default defineCommand({
  pattern: "list [kind]",
  description: "List envs, policies, algorithms, filters and scorers from the registered plugins (list scorers: whether each can run here)",
  options: [{ flags: "--json", description: "Print JSON instead of a table" }],
  examples: ["ragen-bench list", "ragen-bench list filters", "ragen-bench list --json"],
  run: ([kind], opts) =>
    Effect.gen(function* () {
      const registry = yield* Registry
      if (kind !== undefined && !(kinds as ReadonlyArray<string>).includes(kind)) {
        return yield* new UsageError({ field: "kind", message: `unknown kind "${kind}"; use one of: ${kinds.join(", ")}` })
      }
      const shown = kind ? [kind as (typeof kinds)[number]] : [...kinds]
      // `list scorers` (asked by name: probing may take a second) adds each scorer's probe line
      const probes = new Map<string, string>()
      if (kind === "scorers") {
        for (const e of registry.list("scorers")) {
          const probe = e.value.probe
          if (probe) probes.set(e.fullId, yield* Effect.promise(() => probe().catch((err: unknown) => `probe failed: ${(err as Error)?.message ?? err}`)))
        }
      }
      if (opts.json) {
        const out: Record<string, unknown> = {}
        for (const k of shown) {
          out[k] = registry.list(k).map((e) => ({ id: e.fullId, plugin: e.plugin, description: descriptionOf(e.value), ...(probes.has(e.fullId) ? { probe: probes.get(e.fullId) } : {}) }))
        }
        return yield* Console.log(JSON.stringify(out, null, 2))
      }
      const lines: string[] = []
      for (const k of shown) {
        const entries = registry.list(k)
        lines.push(`${k} (${entries.length})`)
        const w = Math.max(0, ...entries.map((e) => e.fullId.length))
        for (const e of entries) {
          lines.push(`  ${e.fullId.padEnd(w)}  ${descriptionOf(e.value)}`)
          if (probes.has(e.fullId)) lines.push(`  ${"".padEnd(w)}  here: ${probes.get(e.fullId)}`)
        }
        lines.push("")
      }
      yield* Console.log(lines.join("\n").trimEnd())
    })
})
