/** leaderboard.md: the paper-style table, the filter ranking and the problems, for terminals. */
import { MIN_PAIRS_TO_SEPARATE } from "./statistics/paired.ts"
import { shortId, fmtAggregatePct, fmtCount, fmtEstimate, fmtLevel, fmtP, fmtPairCount, fmtPaired, fmtPairs, fmtProbability, signedPct } from "./format.ts"
import { legendItems } from "./legend.ts"
import type { Leaderboard, Paired } from "./schema.ts"

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
    `Metric: \`${md(lb.metric)}\` in %, each run scored by its peak (the paper's report) and by the mean of its last 3 evaluations. Means over seeds with [95% bootstrap intervals]; Δ: paired per-seed difference against \`none\` in the same row, its interval at the Holm level; ✓ separated after Holm over the page. **Bold**: best peak in the row. The legend at the end says what each number is.`,
    ""
  )
  const others = lb.filters.filter((f) => f !== "none")
  out.push("## Results (peak)", "")
  out.push(`| env | algo | setting | none | ${others.map(md).join(" | ")} |`)
  out.push(`|---|---|---|---|${others.map(() => "---|").join("")}`)
  for (const r of lb.rows) {
    const cell = (f: string): string => {
      const c = r.cells.find((x) => x.filter === f)
      if (!c) return "–"
      const text = c.kind === "baseline" || !c.delta ? fmtEstimate(c.peak) : `${fmtPaired(c.delta)}${c.delta.separated ? " ✓" : ""} (${fmtPairs(c.delta)})`
      return c.best ? `**${text}**` : text
    }
    out.push(`| ${md(shortId(r.env))} | ${md(shortId(r.algo))} | ${md(r.setting) || "–"} | ${cell("none")} | ${others.map(cell).join(" | ")} |`)
  }
  out.push("", "## Cells", "")
  out.push(
    "| env | algo | setting | filter | seeds | peak | last-3 | pairs | Δ peak vs none | level | p (Holm) | sep. | Δ last-3 vs none | level | sep. | seeds for ±5 | env steps | tokens | rollouts | opt. steps |"
  )
  out.push(`|${"---|".repeat(20)}`)
  const sep = (d: Paired | null): string => (d === null ? "–" : !d.inFamily ? (d.n < MIN_PAIRS_TO_SEPARATE ? `n<${MIN_PAIRS_TO_SEPARATE}` : "ref.") : d.separated ? "✓" : "")
  for (const r of lb.rows) {
    for (const c of r.cells) {
      const d = c.delta
      const l = c.deltaLast3
      out.push(
        `| ${[
          md(shortId(r.env)),
          md(shortId(r.algo)),
          md(r.setting) || "–",
          md(c.filter),
          String(c.peak.n),
          fmtEstimate(c.peak, false),
          c.last3 ? fmtEstimate(c.last3, c.last3.n !== c.peak.n) : "–",
          fmtPairCount(d),
          d ? fmtPaired(d) : "–",
          d && d.lo !== null ? fmtLevel(d.level) : "–",
          d ? `${fmtP(d.p)}${d.pHolm !== null ? ` (${fmtP(d.pHolm)})` : ""}` : "–",
          sep(d),
          l ? `${fmtPaired(l)}${l.n !== d?.n ? ` (${fmtPairs(l)})` : ""}` : "–",
          l && l.lo !== null ? fmtLevel(l.level) : "–",
          sep(l),
          d?.seedsNeeded != null ? String(d.seedsNeeded) : "–",
          fmtCount(c.budget.envSteps),
          fmtCount(c.budget.tokens),
          fmtCount(c.budget.rollouts),
          fmtCount(c.budget.optimizerSteps)
        ].join(" | ")} |`
      )
    }
  }
  if ((lb.across ?? []).length) {
    out.push("", "## Across envs (per algorithm)", "")
    out.push("| algo | filter | envs | IQM peak | IQM last-3 | P(> none) peak | P(> none) last-3 |", `|${"---|".repeat(7)}`)
    for (const a of lb.across) {
      out.push(
        `| ${md(shortId(a.algo))} | ${md(a.filter)} | ${a.envs.map((e) => md(shortId(e))).join(", ")} | ${fmtAggregatePct(a.iqmPeak)} | ${fmtAggregatePct(a.iqmLast3)} | ${fmtProbability(a.improvementPeak)} | ${fmtProbability(a.improvementLast3)} |`
      )
    }
  }
  out.push("", "## Filter ranking", "")
  out.push("| filter | mean rank | mean delta | rows | wins |", "|---|---|---|---|---|")
  for (const e of lb.ranking) {
    out.push(`| ${md(e.filter)} | ${e.meanRank.toFixed(2)} | ${e.meanDelta === null ? "–" : signedPct(e.meanDelta)} | ${e.rows} | ${e.wins} |`)
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
  out.push("", "## Legend", "")
  for (const item of legendItems(lb)) out.push(`- **${md(item.term)}**: ${md(item.text)}`)
  return out.join("\n") + "\n"
}
