/**
 * index.html: a static page with no external assets (inline CSS, inline JS, inline SVG) that
 * works from file://. Every string from result files goes through `esc`; the Content
 * Security Policy allows only this page's own script (by hash), so markup smuggled into a
 * result file could not run even if an escape were missed.
 */
import { createHash } from "node:crypto"
import { cellAnchor, emptyContext, type PageContext, safeHref } from "./context.ts"
import { esc } from "./escape.ts"
import { shortId, fmtAggregatePct, fmtCount, fmtEstimate, fmtFraction, fmtLevel, fmtP, fmtPairCount, fmtPairs, fmtProbability, pct, signedPct } from "./format.ts"
import { dynamicsSection, picturesSection, rowSearch } from "./html-pictures.ts"
import { legendItems } from "./legend.ts"
import { deltaHtml, isBest, verdictHtml } from "./marks.ts"
import { CHART_CSS } from "./plots/css.ts"
import type { Cell, Estimate, Leaderboard, Paired } from "./schema.ts"
import { submitSection } from "./submit.ts"
import { notRankedText } from "./format.ts"
import { improvementOf, iqmOf, keptOf, notLearningOf, pageSentence, PRIMARY_LABEL, primaryDeltaOf, primaryOf, verdictOf } from "./view.ts"

/**
 * The page's only script, optional: sort a table by a clicked header (numbers by data-sort, text
 * otherwise; click again to flip), and the search box, which shows only what matches (it stays
 * hidden when scripts do not run; the page reads the same without it).
 */
const SORT_JS = `
var q = document.getElementById("q");
if (q) {
  q.closest(".search").hidden = false;
  q.addEventListener("input", function () {
    var t = q.value.trim().toLowerCase();
    document.querySelectorAll("[data-search]").forEach(function (el) {
      el.hidden = t !== "" && el.getAttribute("data-search").toLowerCase().indexOf(t) < 0;
    });
  });
}
document.querySelectorAll("table.sortable").forEach(function (table) {
  var heads = table.querySelectorAll("thead th");
  heads.forEach(function (th) {
    th.addEventListener("click", function () {
      var col = th.cellIndex;
      var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
      heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", dir);
      var body = table.tBodies[0];
      var rows = Array.from(body.children);
      var key = function (r) {
        var c = r.cells[col];
        if (!c) return "";
        var v = c.getAttribute("data-sort");
        return v === null ? c.textContent.trim() : v;
      };
      var numeric = rows.every(function (r) { var k = key(r); return k === "" || !isNaN(Number(k)); });
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === "" && y !== "") return 1;
        if (y === "" && x !== "") return -1;
        var d = numeric ? Number(x) - Number(y) : String(x).localeCompare(String(y));
        return dir === "ascending" ? d : -d;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
`.trim()

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:1400px;padding:0 1rem;color:#111}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}h3{font-size:1rem;margin:1rem 0 .3rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3;cursor:pointer;user-select:none}th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
td.num{text-align:right;font-variant-numeric:tabular-nums}.best{font-weight:700;background:#e6f0fa}a.cell-link{color:inherit;text-decoration:none}a.cell-link:hover{text-decoration:underline}
.note{color:#666;font-size:12px}code{font-size:12px;overflow-wrap:anywhere}
.ok{color:#11661d}.bad{color:#a11}.ref{color:#666;font-style:italic}tr.noise-floor td{background:#f7f7fb}
#cells,#runs{font-size:12px}#cells td.num{white-space:nowrap}#cells td,#cells th{padding:.2rem .35rem}
dl.legend dt{font-weight:600;margin-top:.4rem}dl.legend dd{margin:0 0 0 1.2rem;max-width:60rem}.wide{overflow-x:auto;max-width:100%}
#verdict{font-size:1.1rem;font-weight:600;max-width:60rem}nav.toc{display:flex;flex-wrap:wrap;gap:.2rem .9rem}nav.toc a{white-space:nowrap}.search input{font:inherit;padding:.2rem .4rem;width:min(24rem,100%)}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:.5rem;font-size:12px}
${CHART_CSS}
`.trim()

/** Δ and its level; its pairs are noted only when they differ from `pairs` (the primary comparison's). */
const pairedCells = (d: Paired | null, pairs?: number): string =>
  d === null
    ? '<td class="num" data-sort="">–</td><td class="num" data-sort="">–</td>'
    : `${numCell(d.mean, `${deltaHtml(d, false)}${pairs !== undefined && d.n !== pairs ? ` <span class="note">(${esc(fmtPairs(d))})</span>` : ""}`)}${numCell(d.lo === null || verdictOf(d) === "cannot-separate" ? null : d.level, d.lo === null || verdictOf(d) === "cannot-separate" ? "–" : fmtLevel(d.level))}`

/** The verdict column: the mark; the noise floor's marked as a reference (tested alone, never in the family). */
const verdictCell = (d: Paired | null, c: Cell): string =>
  d === null ? "<td>–</td>" : c.kind === "noise-floor" ? `<td class="ref" title="a reference: tested alone, not in the family">ref. ${verdictHtml(d)}</td>` : `<td>${verdictHtml(d)}</td>`

const budgetCells = (c: Cell): string => [c.budget.envSteps, c.budget.tokens, c.budget.rollouts, c.budget.optimizerSteps].map((v) => numCell(v, fmtCount(v))).join("")

/** An estimate's cell; its n only when it differs from the cell's seeds. */
const estCell = (e: Estimate | null, seeds: number, cls = ""): string => numCell(e?.mean ?? null, e ? esc(fmtEstimate(e, e.n !== seeds)) : "–", cls)

const numCell = (value: number | null, text: string, cls = ""): string => `<td class="num${cls ? " " + cls : ""}"${value === null ? ' data-sort=""' : ` data-sort="${value}"`}>${text}</td>`

/** The document head (with the script's CSP hash), the page's verdict first, then how to read it. */
const pageHead = (lb: Leaderboard): string[] => {
  const h: string[] = []
  const scriptHash = createHash("sha256").update(SORT_JS).digest("base64")
  h.push("<!doctype html>", '<html lang="en"><head><meta charset="utf-8">')
  h.push(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; img-src data:">`)
  h.push('<meta name="viewport" content="width=device-width, initial-scale=1">')
  h.push(`<title>ragen-bench leaderboard</title><style>${CSS}</style></head><body>`)
  h.push("<h1>ragen-bench leaderboard</h1>")
  h.push(`<p id="verdict" class="verdict">${esc(pageSentence(lb))}</p>`)
  const complete = lb.entries.filter((e) => e.status === "complete").length
  h.push(
    `<p>${complete} complete runs of ${lb.entries.length} from ${lb.sources.map((s) => `<code>${esc(s)}</code>`).join(", ")}. Each filter is compared with <code>none</code> on the same seeds (same warm start, same instances): the paired difference in ${esc(PRIMARY_LABEL)} with its interval at the Holm level. <span class="v v-better">▲ better</span> and <span class="v v-worse">▼ worse</span> mark a difference that separates after Holm over the page; <span class="v v-not-separated">≈ not separated</span> one whose interval holds 0; <span class="v v-cannot-separate">? cannot separate</span> one that could not separate even at its most extreme result, at its number of seeds and this family size. ★ marks the best cell of a row only when it separates above none. The <a href="#legend-h">legend</a> says what each number is.</p>`
  )
  h.push(
    '<nav class="toc"><a href="#pictures-h">Differences</a><a href="#across-h">Across envs</a><a href="#results-h">Results</a><a href="#dynamics-h">Curves</a><a href="#cells-h">Cells</a><a href="#runs-h">Runs</a><a href="episodes/index.html">Episodes</a><a href="#submit-h">Submit</a> · download <a href="leaderboard.json" download>leaderboard.json</a> <a href="cells.csv" download>cells.csv</a> <a href="leaderboard.md">leaderboard.md</a></nav>'
  )
  h.push('<p class="search" hidden><label>Search envs, filters, runs: <input id="q" type="search" placeholder="e.g. sokoban, top-p, s3"></label></p>')
  return h
}

/** Results: one row per env × algo × setting, none's primary score and every other cell's paired Δ with its verdict. */
const resultsTable = (lb: Leaderboard, others: ReadonlyArray<string>, ctx: PageContext): string[] => {
  const h: string[] = []
  h.push(`<h2 id="results-h">Results (${esc(PRIMARY_LABEL)})</h2><div class="wide">`)
  h.push('<table id="results" class="sortable"><thead><tr><th>env</th><th>algo</th><th>setting</th><th>none (%)</th>')
  for (const f of others) h.push(`<th>${esc(f)} − none</th>`)
  h.push("</tr></thead><tbody>")
  for (const r of lb.rows) {
    const page = ctx.rowPages.get(r.key)
    const stuck = notLearningOf(r)
    const env = `${page ? `<a href="${esc(safeHref(page))}">${esc(shortId(r.env))}</a>` : esc(shortId(r.env))}${stuck ? ` <span class="note" title="${esc(stuck)}">(none does not learn: out of the aggregates)</span>` : ""}${r.collapses ? ` <span class="note" title="${esc(r.collapses)}">(none collapses)</span>` : ""}`
    h.push(`<tr data-row="${esc(r.key)}" data-search="${esc(rowSearch(r))}"><td>${env}</td><td>${esc(shortId(r.algo))}</td><td>${esc(r.setting) || "–"}</td>`)
    for (const f of ["none", ...others]) {
      const c = r.cells.find((x) => x.filter === f)
      const p = c ? primaryOf(c) : null
      if (!c || !p) {
        h.push('<td class="num" data-sort="">–</td>')
        continue
      }
      const d = primaryDeltaOf(c)
      const best = isBest(c)
      // A click on a cell opens its runs (its section on the row's page).
      const open = (inner: string): string => (page ? `<a class="cell-link" href="${esc(safeHref(`${page}#${cellAnchor(r, c)}`))}">${inner}</a>` : inner)
      if (c.kind === "baseline") h.push(numCell(p.mean, open(esc(fmtEstimate(p))), ""))
      // A (Δ) column holds differences only: with no none in the row there is none to show.
      else if (!d) h.push(numCell(null, `– <span class="note">(no none in this row; ${esc(fmtEstimate(p))})</span>`, ""))
      else h.push(numCell(d.mean, `${open(deltaHtml(d))} <span class="note">(${esc(fmtPairs(d))}; ${pct(p.mean)})</span>${best ? " ★" : ""}`, best ? "best" : ""))
    }
    h.push("</tr>")
  }
  h.push("</tbody></table></div>")
  return h
}

/** Cells: every cell's scores, paired Δs, verdicts, power and budget. */
const cellsTable = (lb: Leaderboard, ctx: PageContext): string[] => {
  const h: string[] = []
  h.push('<h2 id="cells-h">Cells</h2>')
  h.push(
    '<p class="note">Every cell: the area under its validation curve (the primary score), last-3 and peak with their 95% intervals, the fraction of groups its filter kept, the paired Δ against <code>none</code> on the area and on last-3 (interval at the level shown, p and Holm-adjusted p) with its verdict, the seeds a 5-point difference would need at 80% power, and what its runs spent (mean per run). The filter links to the cell\'s runs.</p>'
  )
  h.push(
    '<div class="wide"><table id="cells" class="sortable"><thead><tr><th>env</th><th>algo</th><th>setting</th><th>filter</th><th>seeds</th><th>area (%)</th><th>last-3 (%)</th><th>peak (%)</th><th>kept</th><th>pairs</th><th>Δ area</th><th>level</th><th>p (Holm)</th><th>verdict</th><th>Δ last-3</th><th>level</th><th>verdict</th><th>seeds for ±5</th><th>env steps</th><th>tokens</th><th>rollouts</th><th>opt. steps</th></tr></thead><tbody>'
  )
  for (const r of lb.rows) {
    for (const c of r.cells) {
      const d = c.delta
      const l = c.deltaLast3
      const page = ctx.rowPages.get(r.key)
      const name = page ? `<a href="${esc(safeHref(`${page}#${cellAnchor(r, c)}`))}">${esc(c.filter)}</a>` : esc(c.filter)
      h.push(
        `<tr class="${esc(c.kind)}" data-row="${esc(r.key)}" data-filter="${esc(c.filter)}" data-search="${esc(`${rowSearch(r)} ${c.filter}`)}"><td>${esc(shortId(r.env))}</td><td>${esc(shortId(r.algo))}</td><td>${esc(r.setting) || "–"}</td><td>${name}</td>${numCell(c.peak.n, String(c.peak.n))}${estCell(primaryOf(c), c.peak.n, isBest(c) ? "best" : "")}${estCell(c.last3, c.peak.n)}${estCell(c.peak, c.peak.n)}${numCell(keptOf(c), fmtFraction(keptOf(c)))}${numCell(d?.n ?? null, esc(fmtPairCount(d)))}${pairedCells(d)}${numCell(d?.p ?? null, d ? esc(`${fmtP(d.p)}${d.pHolm !== null ? ` (${fmtP(d.pHolm)})` : ""}`) : "–")}${verdictCell(d, c)}${pairedCells(l, d?.n)}${verdictCell(l, c)}${numCell(
          d?.seedsNeeded ?? null,
          d?.seedsNeeded != null ? String(d.seedsNeeded) : "–"
        )}${budgetCells(c)}</tr>`
      )
    }
  }
  h.push("</tbody></table></div>")
  return h
}

/** Selection: each filter with a matched random control (controls.ts), its Δ against none beside its Δ against the control, one Holm family. */
const selectionTable = (lb: Leaderboard): string[] => {
  const withControl = lb.rows.flatMap((r) => r.cells.filter((c) => c.selection).map((c) => ({ r, c, s: c.selection! })))
  if (withControl.length === 0) return []
  const pHolm = (d: Paired | null): string => numCell(d?.p ?? null, d ? esc(`${fmtP(d.p)}${d.pHolm !== null ? ` (${fmtP(d.pHolm)})` : ""}`) : "–")
  const h: string[] = ['<h2 id="selection-h">Selection: each filter against its random control</h2>']
  h.push(
    '<p class="note">A filter that drops groups also takes fewer optimizer steps; its random control keeps as many groups on each batch, at random. Δ vs <code>none</code> mixes which groups are kept with how much the model is updated; Δ vs the control (selection) holds the update budget equal. Both are paired by seed, on the area, in the page\'s one Holm family.</p>'
  )
  h.push(
    '<div class="wide"><table id="selection" class="sortable"><thead><tr><th>env</th><th>algo</th><th>setting</th><th>filter</th><th>control</th><th>pairs</th><th>Δ area vs none</th><th>level</th><th>p (Holm)</th><th>verdict</th><th>Δ area vs control</th><th>level</th><th>p (Holm)</th><th>verdict</th></tr></thead><tbody>'
  )
  for (const { r, c, s } of withControl)
    h.push(
      `<tr class="filter" data-row="${esc(r.key)}" data-filter="${esc(c.filter)}" data-search="${esc(`${rowSearch(r)} ${c.filter} ${s.control}`)}"><td>${esc(shortId(r.env))}</td><td>${esc(shortId(r.algo))}</td><td>${esc(r.setting) || "–"}</td><td>${esc(c.filter)}</td><td>${esc(s.control)}</td>${numCell(s.delta.n, esc(fmtPairCount(s.delta)))}${pairedCells(c.delta)}${pHolm(c.delta)}${verdictCell(c.delta, c)}${pairedCells(s.delta)}${pHolm(s.delta)}${verdictCell(s.delta, c)}</tr>`
    )
  h.push("</tbody></table></div>")
  return h
}

/** Across envs (per algorithm), the numbers behind the IQM and P(improvement) pictures. */
const acrossTable = (lb: Leaderboard): string[] => {
  const h: string[] = []
  if ((lb.across ?? []).length) {
    h.push(
      '<div class="wide"><table id="across" class="sortable"><thead><tr><th>algo</th><th>filter</th><th>envs</th><th>IQM area (%)</th><th>IQM last-3 (%)</th><th>P(&gt; none) area</th><th>P(&gt; none) last-3</th></tr></thead><tbody>'
    )
    for (const a of lb.across) {
      h.push(
        `<tr class="${esc(a.kind)}" data-algo="${esc(a.algo)}" data-filter="${esc(a.filter)}" data-search="${esc(`${a.algo} ${a.filter}`)}"><td>${esc(shortId(a.algo))}</td><td>${esc(a.filter)}</td><td>${a.envs.map((e) => esc(shortId(e))).join(", ")}</td>${numCell(iqmOf(a)?.value ?? null, esc(fmtAggregatePct(iqmOf(a))))}${numCell(
          a.iqmLast3?.value ?? null,
          esc(fmtAggregatePct(a.iqmLast3))
        )}${numCell(improvementOf(a)?.value ?? null, esc(fmtProbability(improvementOf(a))))}${numCell(a.improvementLast3?.value ?? null, esc(fmtProbability(a.improvementLast3)))}</tr>`
      )
    }
    h.push("</tbody></table></div>")
  }
  return h
}

/** Filter ranking: mean rank, mean Δ, rows and wins. */
const rankingTable = (lb: Leaderboard): string[] => {
  const h: string[] = []
  h.push('<h2 id="ranking-h">Filter ranking</h2>')
  h.push(
    '<p class="note">Mean rank of each filter across rows (1 = best mean in the row; ties share ranks; the noise floor is not ranked), its mean paired Δ against <code>none</code>, the rows it appears in and the rows it has the highest mean in. A filter ranks in a row only where its seeds can rank it: where its comparison with <code>none</code> cannot separate at its number of pairs and this family size, it is listed below as not ranked, with the seeds it would need. A rank is not a verdict: read it with the marks above.</p>'
  )
  h.push('<table id="ranking" class="sortable"><thead><tr><th>filter</th><th>mean rank</th><th>mean Δ (%)</th><th>rows</th><th>wins</th></tr></thead><tbody>')
  for (const e of lb.ranking) {
    h.push(
      `<tr data-filter="${esc(e.filter)}" data-search="${esc(e.filter)}"><td>${esc(e.filter)}</td>${numCell(e.meanRank, e.meanRank.toFixed(2))}${numCell(
        e.meanDelta,
        e.meanDelta === null ? "–" : signedPct(e.meanDelta)
      )}${numCell(e.rows, String(e.rows))}${numCell(e.wins, String(e.wins))}</tr>`
    )
  }
  for (const e of lb.notRanked ?? [])
    h.push(`<tr class="not-ranked" data-filter="${esc(e.filter)}" data-search="${esc(e.filter)}"><td>${esc(e.filter)}</td><td colspan="4" data-sort="">${esc(notRankedText(e))}</td></tr>`)
  h.push("</tbody></table>")
  return h
}

/** A run's links inside the site: its files and its episode page. */
export const runLinks = (runId: string, ctx: PageContext, prefix = ""): string => {
  const dir = ctx.runDirs.get(runId)
  const files = dir ? ["config.json", "metrics.jsonl", "summary.json"].map((f) => `<a href="${esc(safeHref(`${prefix}${dir}/${f}`))}">${f.split(".")[0]}</a>`) : []
  const ep = ctx.episodes.get(runId)
  if (ep) files.push(`<a href="${esc(safeHref(`${prefix}${ep}`))}">episodes</a>`)
  return files.join(" ")
}

/** Yours or the reference set's. */
export const whoseHtml = (runId: string, ctx: PageContext): string => (ctx.reference.has(runId) ? '<span class="who-ref">reference</span>' : '<span class="who-yours">yours</span>')

/** Runs: one line per run, whose it is, with its files and episodes. */
const runsTable = (lb: Leaderboard, ctx: PageContext): string[] => {
  const h: string[] = []
  h.push('<h2 id="runs-h">Runs</h2>')
  h.push(
    '<div class="wide"><table id="runs" class="sortable"><thead><tr><th>run</th><th>whose</th><th>env</th><th>algo</th><th>filter</th><th>seed</th><th>status</th><th>peak (%)</th><th>last-3 (%)</th><th>rollouts</th><th>opt. steps</th><th>config hash</th><th>code version</th><th>runtime</th><th>verified</th><th>files</th></tr></thead><tbody>'
  )
  for (const e of lb.entries) {
    const v = e.verified === null ? "–" : e.verified ? '<span class="ok">✓ verified</span>' : '<span class="bad">✗ mismatch</span>'
    h.push(
      `<tr data-search="${esc(`${e.runId} ${e.env} ${e.algo} ${e.filter} s${e.seed}`)}"><td><code>${esc(e.runId)}</code></td><td>${whoseHtml(e.runId, ctx)}</td><td>${esc(shortId(e.env))}</td><td>${esc(shortId(e.algo))}</td><td>${esc(e.filter)}</td>${numCell(e.seed, String(e.seed))}<td title="${esc(e.error ?? "")}">${esc(e.status)}</td>${numCell(
        e.peak,
        e.peak === null ? "–" : pct(e.peak)
      )}${numCell(e.last3, e.last3 === null ? "–" : pct(e.last3))}${numCell(e.budget.rollouts, fmtCount(e.budget.rollouts))}${numCell(e.budget.optimizerSteps, fmtCount(e.budget.optimizerSteps))}<td><code>${esc(e.hash)}</code></td><td>${esc(e.codeVersion)}</td><td>${esc(e.runtime)}</td><td>${v}</td><td>${runLinks(e.runId, ctx)}</td></tr>`
    )
  }
  h.push("</tbody></table></div>")
  return h
}

/** Files left out, the legend, the caller's extra HTML and the script. */
const pageFoot = (lb: Leaderboard, extra: string): string[] => {
  const h: string[] = []
  if (lb.problems.length) {
    h.push('<h2 id="problems-h">Files left out</h2><ul id="problems">')
    for (const p of lb.problems) h.push(`<li><code>${esc(p.path)}</code>: ${esc(p.message)}</li>`)
    h.push("</ul>")
  }
  h.push('<h2 id="legend-h">Legend</h2><dl class="legend" id="legend">')
  for (const item of legendItems(lb)) h.push(`<dt>${esc(item.term)}</dt><dd>${esc(item.text)}</dd>`)
  h.push("</dl>")
  if (extra) h.push(extra)
  h.push(`<script>${SORT_JS}</script></body></html>`)
  return h
}

/** The page; `extra` is further sections (already escaped HTML), e.g. the agents table; `ctx` what the site holds beside it. */
export const renderHtml = (lb: Leaderboard, extra = "", ctx: PageContext = emptyContext): string => {
  const others = lb.filters.filter((f) => f !== "none")
  const h = [
    ...pageHead(lb),
    ...picturesSection(lb, ctx),
    ...acrossTable(lb),
    ...resultsTable(lb, others, ctx),
    ...selectionTable(lb),
    ...rankingTable(lb),
    ...dynamicsSection(lb, ctx),
    ...cellsTable(lb, ctx),
    ...runsTable(lb, ctx),
    ...submitSection(),
    ...pageFoot(lb, extra)
  ]
  return h.join("\n") + "\n"
}
