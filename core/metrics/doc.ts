/**
 * docs/metrics.md's vocabulary tables, rendered from core/metrics/keys.ts (the source of truth).
 * The doc keeps its own prose; only the part between the two markers is generated.
 *
 *   node_modules/.bin/bun core/metrics/doc.ts           # exit 1 and say so when the doc is stale
 *   node_modules/.bin/bun core/metrics/doc.ts --write   # rewrite that part of docs/metrics.md
 */
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { type MetricGroup, metricGroups, placeholders } from "./keys.ts"

export const BEGIN = "<!-- metric-keys:begin (generated from core/metrics/keys.ts by `bun core/metrics/doc.ts --write`; do not edit) -->"
export const END = "<!-- metric-keys:end -->"

const cell = (s: string): string => s.replace(/\|/g, "\\|").replace(/\n/g, " ")

export const renderGroup = (g: MetricGroup): string =>
  [`### \`${g.title}\``, "", g.about, "", "| name | meaning |", "|---|---|", ...g.keys.map((k) => `| \`${k.key}\` | ${cell(k.meaning)} |`)].join("\n")

/** The generated part of docs/metrics.md (markers included). */
export const renderMetricsDoc = (groups: ReadonlyArray<MetricGroup> = metricGroups): string =>
  [
    BEGIN,
    "",
    "Placeholders in names:",
    "",
    "| placeholder | stands for |",
    "|---|---|",
    ...Object.entries(placeholders).map(([name, p]) => `| \`<${name}>\` | ${cell(p.meaning)} |`),
    "",
    ...groups.flatMap((g) => [renderGroup(g), ""]),
    END
  ].join("\n")

/** Replace the generated part of a doc's text; an error when the markers are missing. */
export const spliceMetricsDoc = (text: string, generated: string = renderMetricsDoc()): string => {
  const a = text.indexOf(BEGIN)
  const b = text.indexOf(END)
  if (a < 0 || b < a) throw new Error(`docs/metrics.md: the markers ${BEGIN} … ${END} are missing`)
  return text.slice(0, a) + generated + text.slice(b + END.length)
}

/** The keys (patterns included) listed in the doc's name columns between the markers. */
export const keysInDoc = (text: string): string[] => {
  const a = text.indexOf(BEGIN)
  const b = text.indexOf(END)
  const body = a >= 0 && b > a ? text.slice(a, b) : text
  const out: string[] = []
  for (const line of body.split("\n")) {
    const m = /^\| `([^`]+)` \|/.exec(line)
    if (m && !m[1]!.startsWith("<")) out.push(m[1]!)
  }
  return out
}

export const docPath = fileURLToPath(new URL("../../docs/metrics.md", import.meta.url))

if (import.meta.main) {
  const text = readFileSync(docPath, "utf8")
  const next = spliceMetricsDoc(text)
  if (process.argv.includes("--write")) {
    if (next !== text) writeFileSync(docPath, next)
    console.log(next === text ? "docs/metrics.md is up to date" : "docs/metrics.md rewritten from core/metrics/keys.ts")
  } else if (next !== text) {
    console.error("docs/metrics.md differs from core/metrics/keys.ts; run: bun core/metrics/doc.ts --write")
    process.exit(1)
  } else console.log("docs/metrics.md is up to date")
}
