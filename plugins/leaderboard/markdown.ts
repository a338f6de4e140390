/** leaderboard.md: the paper-style table, the filter ranking and the problems, for terminals. */
import { fmtDelta, fmtStat } from "./format.ts"
import type { Leaderboard } from "./schema.ts"

/**
 * Text from result files as inert Markdown: pipes and newlines cannot break a table, and
 * links, images, code spans, emphasis, HTML and autolinks cannot form (each such character is
 * backslash-escaped, "&" and "<" become entities, "://" and "www." lose their link meaning).
 * Control characters are dropped.
 */
export const md = (s: string): string =>
  s
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*_{}[\]()#!|~]/g, (c) => `\\${c}`)
    .replace(/:\/\//g, "\\:\\/\\/")
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}\\.`)

export const renderMarkdown = (lb: Leaderboard): string => {
  const out: string[] = []
  out.push("# ragen-bench leaderboard", "")
  out.push(
    `Metric: peak \`${lb.metric}\` over each run's evaluations, in %; mean ± standard error over seeds (n). Filter columns: delta against \`none\` in the same row. **Bold**: best in the row.`,
    ""
  )
  const others = lb.filters.filter((f) => f !== "none")
  out.push("## Results", "")
  out.push(`| env | algo | setting | none | ${others.map(md).join(" | ")} |`)
  out.push(`|---|---|---|---|${others.map(() => "---|").join("")}`)
  for (const r of lb.rows) {
    const cell = (f: string): string => {
      const c = r.cells.find((x) => x.filter === f)
      if (!c) return "–"
      const text = f === "none" ? fmtStat(c.stat) : c.delta ? `${fmtDelta(c.delta)} (n=${c.delta.n})` : fmtStat(c.stat)
      return c.best ? `**${text}**` : text
    }
    out.push(`| ${md(r.env)} | ${md(r.algo)} | ${md(r.setting) || "–"} | ${cell("none")} | ${others.map(cell).join(" | ")} |`)
  }
  out.push("", "## Filter ranking", "")
  out.push("| filter | mean rank | mean delta | rows | wins |", "|---|---|---|---|---|")
  for (const e of lb.ranking) {
    out.push(`| ${md(e.filter)} | ${e.meanRank.toFixed(2)} | ${e.meanDelta === null ? "–" : `${e.meanDelta >= 0 ? "+" : ""}${(100 * e.meanDelta).toFixed(1)}`} | ${e.rows} | ${e.wins} |`)
  }
  const failed = lb.entries.filter((e) => e.status !== "complete")
  if (failed.length) {
    out.push("", "## Runs not complete", "")
    for (const e of failed) out.push(`- ${md(e.runId)}: ${e.status}${e.error ? ` — ${md(e.error)}` : ""}`)
  }
  if (lb.problems.length) {
    out.push("", "## Files left out", "")
    for (const p of lb.problems) out.push(`- ${md(p.path)}: ${md(p.message)}`)
  }
  const verified = lb.entries.filter((e) => e.verified !== null)
  if (verified.length) {
    out.push("", `Verified by re-running: ${verified.filter((e) => e.verified).length} of ${verified.length} checked runs matched exactly.`)
  }
  return out.join("\n") + "\n"
}
