/**
 * A row's drill-down page (rows/<n>-<env>.html): its forest panel on the main page's axis, its
 * learning curves, and per cell its verdict and its runs, each linked to its files, its episode
 * page and, where both kept samples, the side-by-side episodes against none at the same seed.
 * No script; every string escaped.
 */
import { cellAnchor, type PageContext, safeHref, safeName } from "./context.ts"
import { esc } from "./escape.ts"
import { fmtEstimate, fmtFraction, fmtPaired, fmtPairs, pct } from "./format.ts"
import { cellHref, groupCharts } from "./html-pictures.ts"
import { runLinks, whoseHtml } from "./html.ts"
import { verdictHtml } from "./marks.ts"
import { CHART_CSS } from "./plots/css.ts"
import { rowForest, rowTitle } from "./plots/forest.ts"
import type { Cell, Leaderboard, Row } from "./schema.ts"
import { keptOf, notLearningOf, PRIMARY_LABEL, primaryDeltaOf, primaryOf } from "./view.ts"

export const ROWS_DIR = "rows"

/** Each row's page, relative to the site folder. */
export const rowPagePaths = (lb: Leaderboard): Map<string, string> =>
  new Map(lb.rows.map((r, i) => [r.key, `${ROWS_DIR}/${i + 1}-${safeName(`${r.env.replace(/^.*\//, "")}-${r.algo.replace(/^.*\//, "")}`)}.html`]))

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:1400px;padding:0 1rem;color:#111}
h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:1.6rem}h3{font-size:1rem;margin:1.2rem 0 .3rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.25rem .4rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}.note{color:#666;font-size:12px}
code{font-size:12px;overflow-wrap:anywhere}pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;background:#f6f6f6;padding:.5rem}.wide{overflow-x:auto;max-width:100%}.floor{background:#f3f3f8;padding:0 .3rem}
${CHART_CSS}
`.trim()

const cellSection = (lb: Leaderboard, row: Row, c: Cell, ctx: PageContext): string[] => {
  const h: string[] = []
  const d = primaryDeltaOf(c)
  const p = primaryOf(c)
  const floor = c.kind === "noise-floor" ? ' <span class="floor">noise floor: none on another sampling stream</span>' : ""
  h.push(`<section id="${cellAnchor(row, c)}"><h3>${esc(c.filter)}${floor}</h3>`)
  h.push(
    `<p>${esc(PRIMARY_LABEL)}: ${p ? esc(fmtEstimate(p)) : "–"}${d ? `; − none: ${esc(fmtPaired(d))} (${esc(fmtPairs(d))}) ${verdictHtml(d)}` : c.kind === "baseline" ? " (the baseline)" : ""}${c.selection ? `; − ${esc(c.selection.control)} (selection): ${esc(fmtPaired(c.selection.delta))} (${esc(fmtPairs(c.selection.delta))}) ${verdictHtml(c.selection.delta)}` : ""}${keptOf(c) !== null ? `; kept ${esc(fmtFraction(keptOf(c)))} of its groups` : ""}</p>`
  )
  const runs = lb.entries.filter((e) => e.rowKey === row.key && e.filter === c.filter).sort((a, b) => a.seed - b.seed)
  h.push(
    '<div class="wide"><table class="runs"><thead><tr><th>seed</th><th>run</th><th>whose</th><th>status</th><th>peak (%)</th><th>last-3 (%)</th><th>files</th><th>side by side</th></tr></thead><tbody>'
  )
  for (const e of runs) {
    const sides = ctx.compare.filter((x) => x.rowKey === row.key && x.seed === e.seed && (x.a === c.filter || x.b === c.filter))
    const side = sides.map((x) => `<a href="${esc(safeHref(`../${x.href}`))}">${esc(x.a === c.filter ? x.b : x.a)}</a>`).join(" ")
    h.push(
      `<tr><td class="num">${e.seed}</td><td><code>${esc(e.runId)}</code></td><td>${whoseHtml(e.runId, ctx)}</td><td>${esc(e.status)}</td><td class="num">${e.peak === null ? "–" : pct(e.peak)}</td><td class="num">${e.last3 === null ? "–" : pct(e.last3)}</td><td>${runLinks(e.runId, ctx, "../")}</td><td>${side || "–"}</td></tr>`
    )
  }
  h.push("</tbody></table></div></section>")
  return h
}

/** The row key (canonical JSON) indented for reading; as it is when it does not parse. */
const pretty = (key: string): string => {
  try {
    return JSON.stringify(JSON.parse(key), null, 2)
  } catch {
    return key
  }
}

export const renderRowPage = (lb: Leaderboard, row: Row, ctx: PageContext, domain: readonly [number, number]): string => {
  const h: string[] = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">']
  h.push(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`)
  h.push('<meta name="viewport" content="width=device-width, initial-scale=1">')
  h.push(`<title>${esc(rowTitle(row))} · ragen-bench leaderboard</title><style>${CSS}</style></head><body>`)
  h.push('<p><a href="../index.html">leaderboard</a> · <a href="../episodes/index.html">episodes</a></p>')
  h.push(`<h1>${esc(rowTitle(row))}</h1>`)
  if (row.collapses) h.push(`<p><b>none collapses here</b>: ${esc(row.collapses)}.</p>`)
  if (notLearningOf(row)) h.push(`<p><b>none does not learn here</b>: ${esc(notLearningOf(row))}. The row stays on the page, out of IQM, P(improvement) and the ranking.</p>`)
  h.push(
    `<details><summary>The row's config</summary><p class="note">The resolved config all its runs share (seed, filter and sampling stream aside) and the results-semantics version.</p><pre>${esc(pretty(row.key))}</pre></details>`
  )
  const forest = rowForest(row, domain, cellHref(ctx, "../"), lb.filters)
  if (forest) h.push(`<h2>Differences from none</h2><figure class="charts">${forest}</figure>`)
  const g = lb.groups.find((x) => x.key === row.key)
  if (g) h.push("<h2>Learning curves</h2>", ...groupCharts(lb, g, ctx, "../"))
  h.push("<h2>Cells and their runs</h2>")
  for (const c of row.cells) h.push(...cellSection(lb, row, c, ctx))
  h.push("</body></html>", "")
  return h.join("\n")
}
