/** leaderboard.md: the verdict in words, the paper-style table, the cells, the ranking and the problems, for terminals. */
import { fmtAggregatePct, fmtCount, fmtEstimate, fmtFraction, fmtLevel, fmtP, fmtPairCount, fmtPairs, fmtProbability, fmtVerdict, notRankedText, shortId, signedPct } from "./format.ts"
import { legendItems } from "./legend.ts"
import type { Cell, Leaderboard, Paired, Row } from "./schema.ts"

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

/** The results table's cell: none's area; a filter's Δ with its verdict; ★ only on a separated-better best. */
const resultCell = (r: Row, f: string): string => {
  const c = r.cells.find((x) => x.filter === f)
  if (!c) return "–"
  const text =
    c.kind === "baseline" || !c.delta
      ? c.auc
        ? fmtEstimate(c.auc)
        : "–"
      : c.delta.verdict === "cannot-separate" && !c.delta.unpaired
        ? fmtVerdict(c.delta)
        : `${fmtVerdict(c.delta)} (${fmtPairs(c.delta)})`
  return c.best ? `**${text}** ★ best` : text
}

const pAndHolm = (d: Paired | null): string => (d ? `${fmtP(d.p)}${d.pHolm !== null ? ` (${fmtP(d.pHolm)})` : ""}` : "–")

/** One row of the cells table. */
const cellLine = (r: Row, c: Cell): string => {
  const d = c.delta
  const est = (e: Cell["auc"]): string => (e ? fmtEstimate(e, false) : "–")
  const other = (x: Paired | null): string => (x ? `${fmtVerdict(x)}${x.n !== d?.n ? ` (${fmtPairs(x)})` : ""}` : "–")
  return `| ${[
    md(shortId(r.env)),
    md(shortId(r.algo)),
    md(r.setting) || "–",
    md(c.filter),
    String(c.peak.n),
    est(c.auc),
    est(c.last3),
    est(c.peak),
    est(c.factAuc),
    fmtFraction(c.kept.groups),
    fmtFraction(c.kept.nonZeroSpread),
    fmtPairCount(d),
    d ? fmtVerdict(d) : "–",
    d && d.lo !== null && d.verdict !== "cannot-separate" ? fmtLevel(d.level) : "–",
    pAndHolm(d),
    other(c.deltaLast3),
    other(c.deltaPeak),
    other(c.deltaFactAuc),
    d?.seedsNeeded != null ? String(d.seedsNeeded) : "–",
    fmtCount(c.budget.envSteps),
    fmtCount(c.budget.tokens),
    fmtCount(c.budget.rollouts),
    fmtCount(c.budget.optimizerSteps)
  ].join(" | ")} |`
}

/**
 * The selection contrasts (controls.ts): per filter with a matched random control in its row, its
 * Δ area against none beside its Δ area against the control, each with its verdict, level and p in
 * the page's one Holm family. Empty where the page holds no matched control.
 */
const selectionSection = (lb: Leaderboard): string[] => {
  const withControl = lb.rows.flatMap((r) => r.cells.filter((c) => c.selection).map((c) => ({ r, c, s: c.selection! })))
  if (withControl.length === 0) return []
  const level = (d: Paired): string => (d.lo !== null && d.verdict !== "cannot-separate" ? fmtLevel(d.level) : "–")
  return [
    "",
    "## Selection: each filter against its random control at the same kept count",
    "",
    "A filter that drops groups also takes fewer optimizer steps; its random control keeps as many groups on each batch, at random. filter − none mixes which groups are kept with how much the model is updated; filter − control (selection) holds the update budget equal. Both are paired by seed, on the area, in the page's one Holm family.",
    "",
    "| env | algo | setting | filter | control | pairs | Δ area vs none | level | p (Holm) | Δ area vs control (selection) | level | p (Holm) |",
    `|${"---|".repeat(12)}`,
    ...withControl.map(
      ({ r, c, s }) =>
        `| ${[
          md(shortId(r.env)),
          md(shortId(r.algo)),
          md(r.setting) || "–",
          md(c.filter),
          md(s.control),
          fmtPairCount(s.delta),
          c.delta ? fmtVerdict(c.delta) : "–",
          c.delta ? level(c.delta) : "–",
          pAndHolm(c.delta),
          fmtVerdict(s.delta),
          level(s.delta),
          pAndHolm(s.delta)
        ].join(" | ")} |`
    )
  ]
}

export const renderMarkdown = (lb: Leaderboard): string => {
  const out: string[] = ["# ragen-bench leaderboard", "", `**${md(lb.verdict.sentence)}**`, ""]
  out.push(
    `Scores from \`${md(lb.metric)}\` in %: the primary is the area under the validation curve (mean success over the evaluations after step 0); last-3 and peak (the paper's report) beside it. Means over seeds with [95% t intervals]; Δ: paired per-seed difference against \`none\` in the same row, with its t interval at the Holm level and its verdict (▲ better, ▼ worse, nothing when not separated, or "cannot separate" when its n cannot pass the page's Holm threshold). ★ best: the highest area in the row among the cells separated above none. The legend at the end says what each number is.`,
    ""
  )
  const others = lb.filters.filter((f) => f !== "none")
  out.push("## Results (area under the validation curve)", "")
  out.push(`| env | algo | setting | none | ${others.map(md).join(" | ")} |`)
  out.push(`|---|---|---|---|${others.map(() => "---|").join("")}`)
  for (const r of lb.rows)
    out.push(
      `| ${md(shortId(r.env))} | ${md(shortId(r.algo))} | ${md(r.setting) || "–"}${r.notLearning ? " (none does not learn)" : ""}${r.collapses ? " (none collapses)" : ""} | ${resultCell(r, "none")} | ${others.map((f) => resultCell(r, f)).join(" | ")} |`
    )
  const idle = lb.rows.filter((r) => r.notLearning !== null)
  if (idle.length) {
    out.push("", "Rows left out of the ranking, IQM and P(> none) because none does not learn there:", "")
    for (const r of idle) out.push(`- ${md(shortId(r.env))}${r.setting ? ` (${md(r.setting)})` : ""}: ${md(r.notLearning!)}`)
  }
  const collapsing = lb.rows.filter((r) => r.collapses)
  if (collapsing.length) {
    out.push("", "Rows where none rises then collapses (the paper's regime; they stay in the ranking):", "")
    for (const r of collapsing) out.push(`- ${md(shortId(r.env))}${r.setting ? ` (${md(r.setting)})` : ""}: ${md(r.collapses!)}`)
  }
  out.push("", "## Cells", "")
  out.push(
    "| env | algo | setting | filter | seeds | area | last-3 | peak | fact area | kept groups | kept non-zero-spread | pairs | Δ area vs none | level | p (Holm) | Δ last-3 | Δ peak | Δ fact area | seeds for ±5 | env steps | tokens | rollouts | opt. steps |"
  )
  out.push(`|${"---|".repeat(23)}`)
  for (const r of lb.rows) for (const c of r.cells) out.push(cellLine(r, c))
  out.push(...selectionSection(lb))
  if ((lb.across ?? []).length) {
    out.push("", "## Across envs (per algorithm, envs where none learns or collapses)", "")
    out.push("| algo | filter | envs | IQM area | IQM last-3 | P(> none) area | P(> none) last-3 |", `|${"---|".repeat(7)}`)
    for (const a of lb.across) {
      out.push(
        `| ${md(shortId(a.algo))} | ${md(a.filter)} | ${a.envs.map((e) => md(shortId(e))).join(", ")} | ${fmtAggregatePct(a.iqm)} | ${fmtAggregatePct(a.iqmLast3)} | ${fmtProbability(a.improvement)} | ${fmtProbability(a.improvementLast3)} |`
      )
    }
  }
  out.push("", "## Filter ranking (area, envs where none learns or collapses)", "")
  out.push("| filter | mean rank | mean Δ area | rows | best |", "|---|---|---|---|---|")
  for (const e of lb.ranking) out.push(`| ${md(e.filter)} | ${e.meanRank.toFixed(2)} | ${e.meanDelta === null ? "–" : signedPct(e.meanDelta)} | ${e.rows} | ${e.wins} |`)
  for (const e of lb.notRanked ?? []) out.push(`| ${md(e.filter)} | ${md(notRankedText(e))} | | | |`)
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
  if (verified.length) out.push("", `Verified by re-running: ${verified.filter((e) => e.verified).length} of ${verified.length} checked runs matched exactly.`)
  out.push("", "## Legend", "")
  for (const item of legendItems(lb)) out.push(`- **${md(item.term)}**: ${md(item.text)}`)
  return out.join("\n") + "\n"
}
