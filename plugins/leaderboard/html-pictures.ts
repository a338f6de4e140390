/**
 * The page's pictures: the forest plots (one panel per row, one shared domain) first, the
 * rliable-style panels across envs, and the learning curves with their bands over seeds. Each
 * line and curve links to its cell's runs on the row's page.
 */
import { cellAnchor, type PageContext, safeHref } from "./context.ts"
import { esc } from "./escape.ts"
import { acrossPanels } from "./plots/across.ts"
import type { BandPoint } from "./plots/bands.ts"
import { curveChart, curveLegend } from "./plots/curves.ts"
import { filterStyles } from "./plots/palette.ts"
import { type CellHref, forestDomain, rowForest, VERDICT_MARK } from "./plots/forest.ts"
import type { Group, Leaderboard, Row } from "./schema.ts"
import { PRIMARY_LABEL } from "./view.ts"

/** What the search box matches a row by. */
export const rowSearch = (r: Row): string => `${r.env} ${r.algo} ${r.setting} ${r.cells.map((c) => c.filter).join(" ")}`

/** A cell's link: its section on the row's page (prefix: the way from the linking page to the site root). */
export const cellHref =
  (ctx: PageContext, prefix = ""): CellHref =>
  (row, cell) => {
    const page = ctx.rowPages.get(row.key)
    return page ? safeHref(`${prefix}${page}#${cellAnchor(row, cell)}`) : undefined
  }

const markKey = (): string =>
  `<p class="legend-line">${Object.entries(VERDICT_MARK)
    .map(([v, m]) => `<span class="key v v-${v}">${m.glyph} ${esc(m.word)}</span>`)
    .join(" ")}<span class="key"><svg width="22" height="10" aria-hidden="true"><rect x="1" y="0" width="20" height="10" fill="#d9d9e6"/></svg>noise floor (none′ − none, its interval)</span></p>`

/** The first picture: each filter's paired difference from none, per row, on one shared axis; then across envs. */
export const picturesSection = (lb: Leaderboard, ctx: PageContext): string[] => {
  const h: string[] = []
  const domain = forestDomain(lb)
  h.push(`<h2 id="pictures-h">Differences from none</h2>`)
  h.push(
    `<p class="note">Per row, each filter's paired difference from <code>none</code> in ${esc(PRIMARY_LABEL)} (points) with its interval at the Holm level (none where the comparison cannot separate at its n: its mean only); the shaded band is the noise floor, none on another sampling stream against none: a difference inside it is what chance alone gives. Every panel has the same axis. Click a line for its runs.</p>`
  )
  h.push(markKey())
  h.push('<div class="charts" id="forest">')
  for (const r of lb.rows) {
    const svg = rowForest(r, domain, cellHref(ctx), lb.filters)
    if (svg) h.push(`<figure data-row="${esc(r.key)}" data-search="${esc(rowSearch(r))}">${svg}</figure>`)
  }
  h.push("</div>")
  const panels = acrossPanels(lb)
  h.push('<h2 id="across-h">Across envs (per algorithm)</h2>')
  if (panels.length) {
    h.push(
      '<p class="note">In the style of rliable (Agarwal et al. 2021): the interquartile mean of normalized scores, and the probability that a run of the filter beats a run of none in the same env, each with a 95% stratified-bootstrap interval (bars). ½ means no difference.</p>'
    )
    h.push(`<div class="charts" id="across-plots">${panels.map((p) => `<figure>${p}</figure>`).join("")}</div>`)
  } else h.push('<p class="note">No row to aggregate.</p>')
  return h
}

/** A group's chart metric as band points (the group's seed means when the site has no bands). */
const bandSeries = (g: Group, metric: string, ctx: PageContext): Array<{ name: string; points: ReadonlyArray<BandPoint> }> => {
  const chart = g.charts.find((c) => c.metric === metric)!
  const byF = ctx.bands.get(g.key)
  return chart.series.map((s) => ({ name: s.name, points: byF?.get(s.name)?.get(metric) ?? s.points.map(([x, y]): BandPoint => [x, y, y, y, 1]) }))
}

/** One row's learning curves (the same on the main page and on the row's page). */
export const groupCharts = (lb: Leaderboard, g: Group, ctx: PageContext, prefix = ""): string[] => {
  const row = lb.rows.find((r) => r.key === g.key)
  let xMax = 0
  for (const c of g.charts) for (const s of c.series) for (const p of s.points) xMax = Math.max(xMax, p[0])
  const names = [...new Set(g.charts.flatMap((c) => c.series.map((s) => s.name)))]
  const styles = filterStyles([...lb.filters, ...names])
  const h: string[] = [curveLegend(names, lb.filters), '<div class="charts">']
  for (const c of g.charts) {
    const series = bandSeries(g, c.metric, ctx).map((s) => {
      const cell = row?.cells.find((x) => x.filter === s.name)
      const href = row && cell ? cellHref(ctx, prefix)(row, cell) : undefined
      const styled = { ...s, style: styles.get(s.name)! }
      return href ? { ...styled, href } : styled
    })
    h.push(`<figure data-metric="${esc(c.metric)}">${curveChart({ title: c.title, metric: c.metric, series, xMax })}</figure>`)
  }
  h.push("</div>")
  if (g.missing.length) h.push(`<p class="note missing">Not logged by these runs: ${g.missing.map((m) => `<code>${esc(m)}</code>`).join(", ")}.</p>`)
  return h
}

/** Training dynamics: each row's curves, mean over seeds with the band from the lowest to the highest seed. */
export const dynamicsSection = (lb: Leaderboard, ctx: PageContext): string[] => {
  const h: string[] = ['<h2 id="dynamics-h">Learning curves</h2>']
  h.push(
    '<p class="note">Per row: each filter\'s mean over seeds, the band from the lowest to the highest seed, on fixed axes (0–100% for rates; x from 0 to the last step), on the steps every one of its seeds logged (runs that log every step beside compact records that keep the evaluation steps only are drawn on the shared steps, never averaged over seeds that change along x). Each filter has a colour and a dash pattern of its own. Paper Fig. 5: success, retrieval accuracy, entropy; Fig. 10: kept ratio, zero-variance groups; Table 8: reward-variance statistics. Hover a point for its value; click a curve for its runs.</p>'
  )
  for (const g of lb.groups) {
    const row = lb.rows.find((r) => r.key === g.key)
    const page = ctx.rowPages.get(g.key)
    const title = page ? `<a href="${esc(safeHref(page))}">${esc(g.title)}</a>` : esc(g.title)
    h.push(`<section class="group" data-group="${esc(g.key)}" data-search="${esc(row ? rowSearch(row) : g.title)}"><h3>${title}</h3>`)
    h.push(...groupCharts(lb, g, ctx))
    h.push("</section>")
  }
  return h
}
