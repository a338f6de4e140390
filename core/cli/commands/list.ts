import { Console, Effect } from "effect"
import { UsageError } from "../../errors.ts"
import { descriptionOf, kinds, Registry } from "../../registry.ts"
import { defineCommand } from "../command.ts"

export default defineCommand({
  pattern: "list [kind]",
  description: "List envs, policies, algorithms, filters and scorers from the registered plugins",
  options: [{ flags: "--json", description: "Print JSON instead of a table" }],
  examples: ["ragen-bench list", "ragen-bench list filters", "ragen-bench list --json"],
  run: ([kind], opts) =>
    Effect.gen(function* () {
      const registry = yield* Registry
      if (kind !== undefined && !(kinds as ReadonlyArray<string>).includes(kind)) {
        return yield* new UsageError({ field: "kind", message: `unknown kind "${kind}"; use one of: ${kinds.join(", ")}` })
      }
      const shown = kind ? [kind as (typeof kinds)[number]] : [...kinds]
      if (opts.json) {
        const out: Record<string, unknown> = {}
        for (const k of shown) {
          out[k] = registry.list(k).map((e) => ({ id: e.fullId, plugin: e.plugin, description: descriptionOf(e.value) }))
        }
        return yield* Console.log(JSON.stringify(out, null, 2))
      }
      const lines: string[] = []
      for (const k of shown) {
        const entries = registry.list(k)
        lines.push(`${k} (${entries.length})`)
        const w = Math.max(0, ...entries.map((e) => e.fullId.length))
        for (const e of entries) lines.push(`  ${e.fullId.padEnd(w)}  ${descriptionOf(e.value)}`)
        lines.push("")
      }
      yield* Console.log(lines.join("\n").trimEnd())
    })
})
