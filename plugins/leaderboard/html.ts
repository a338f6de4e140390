/**
 * index.html: a static page with no external assets (inline CSS, inline JS, inline SVG) that
 * works from file://. Every string from result files goes through `esc`; the Content
 * Security Policy allows only this page's own script (by hash), so markup smuggled into a
 * result file could not run even if an escape were missed.
 */
import { MIN_PAIRS_TO_SEPARATE } from "../../core/statistics/paired.ts"
import { createHash } from "node:crypto"
import { esc } from "./escape.ts"
import { shortId, fmtAggregatePct, fmtCount, fmtEstimate, fmtLevel, fmtP, fmtPairCount, fmtPaired, fmtPairs, fmtProbability, pct, signedPct } from "./format.ts"
import { legendItems } from "./legend.ts"
import type { Cell, Leaderboard, Paired } from "./schema.ts"
import { lineChart } from "./svg.ts"

/** Sort a table by a clicked header: numbers by data-sort, text otherwise; click again to flip. */
const SORT_JS = `
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
td.num{text-align:right;font-variant-numeric:tabular-nums}.best{font-weight:700;background:#eaf6ea}.pos{color:#11661d}.neg{color:#a11}
.charts{display:flex;flex-wrap:wrap;gap:.5rem}.chart .ct{font-size:12px;font-weight:600}.chart .tick,.chart .lg{font-size:10px;fill:#333}
.chart .grid{stroke:#e4e4e4}.chart .frame{fill:none;stroke:#999}.note{color:#666;font-size:12px}code{font-size:12px}
.ok{color:#11661d}.bad{color:#a11}.sep{color:#11661d;font-weight:700}.ref{color:#666;font-style:italic}tr.noise-floor td{background:#f7f7fb}
#cells{font-size:12px}#cells td.num{white-space:nowrap}#cells td,#cells th{padding:.2rem .35rem}
dl.legend dt{font-weight:600;margin-top:.4rem}dl.legend dd{margin:0 0 0 1.2rem;max-width:60rem}.wide{overflow-x:auto}
`.trim()

/** A Δ with its interval, coloured by sign, with the separated mark. */
const deltaHtml = (d: Paired, mark = true): string => {
  const sign = d.mean > 0 ? "pos" : d.mean < 0 ? "neg" : ""
  return `<span class="${sign}">${esc(fmtPaired(d))}</span>${mark && d.separated ? ' <span class="sep" title="separated (Holm)">✓</span>' : ""}`
}

/** Δ and its level; its pairs are noted only when they differ from `pairs` (the peak comparison's). */
const pairedCells = (d: Paired | null, pairs?: number): string =>
  d === null
    ? '<td class="num" data-sort="">–</td><td class="num" data-sort="">–</td>'
    : `${numCell(d.mean, `${deltaHtml(d, false)}${pairs !== undefined && d.n !== pairs ? ` <span class="note">(${esc(fmtPairs(d))})</span>` : ""}`)}${numCell(d.lo === null ? null : d.level, d.lo === null ? "–" : fmtLevel(d.level))}`

const sepCell = (d: Paired | null): string =>
  d === null
    ? "<td>–</td>"
    : !d.inFamily
      ? d.n < MIN_PAIRS_TO_SEPARATE
        ? `<td class="ref" title="fewer than ${MIN_PAIRS_TO_SEPARATE} pairs: not tested">n&lt;${MIN_PAIRS_TO_SEPARATE}</td>`
        : '<td class="ref" title="a reference: not tested">ref.</td>'
      : d.separated
        ? '<td class="sep">✓</td>'
        : "<td></td>"

const budgetCells = (c: Cell): string => [c.budget.envSteps, c.budget.tokens, c.budget.rollouts, c.budget.optimizerSteps].map((v) => numCell(v, fmtCount(v))).join("")

const numCell = (value: number | null, text: string, cls = ""): string => `<td class="num${cls ? " " + cls : ""}"${value === null ? ' data-sort=""' : ` data-sort="${value}"`}>${text}</td>`

/** A relative link that can never become a javascript: or other scheme URL. */
const safeHref = (path: string): string => {
  const p = path.split("/").map(encodeURIComponent).join("/")
  return esc(p.startsWith(".") || p.startsWith("/") ? p : `./${p}`)
}

/** The page; `extra` is further sections (already escaped HTML), e.g. the agents table. */
export const renderHtml = (lb: Leaderboard, extra = ""): string => {
  const others = lb.filters.filter((f) => f !== "none")
  const h: string[] = []
  const scriptHash = createHash("sha256").update(SORT_JS).digest("base64")
  h.push("<!doctype html>", '<html lang="en"><head><meta charset="utf-8">')
  h.push(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; img-src data:">`)
  h.push('<meta name="viewport" content="width=device-width, initial-scale=1">')
  h.push(`<title>ragen-bench leaderboard</title><style>${CSS}</style></head><body>`)
  h.push("<h1>ragen-bench leaderboard</h1>")
  const complete = lb.entries.filter((e) => e.status === "complete").length
  h.push(
    `<p>${complete} complete runs of ${lb.entries.length} from ${lb.sources.map((s) => `<code>${esc(s)}</code>`).join(", ")}. Metric: <code>${esc(lb.metric)}</code> in %, each run scored by its peak (the paper's report) and by the mean of its last 3 evaluations. Means over seeds with [95% bootstrap intervals]; Δ is the paired per-seed difference against <code>none</code> in the same row, its interval at the Holm level; <span class="sep">✓</span> separated after Holm over the page. The best peak of each row is highlighted. The <a href="#legend-h">legend</a> says what each number is. Click a column header to sort.</p>`
  )
  h.push('<p><a href="episodes/index.html">Episodes</a>: the validation episodes each run kept, step by step (samples.jsonl), to watch reasoning turn into a template.</p>')

  h.push('<h2 id="results-h">Results (peak)</h2>')
  h.push('<table id="results" class="sortable"><thead><tr><th>env</th><th>algo</th><th>setting</th><th>none (peak)</th>')
  for (const f of others) h.push(`<th>${esc(f)} (Δ)</th>`)
  h.push("</tr></thead><tbody>")
  for (const r of lb.rows) {
    h.push(`<tr data-row="${esc(r.key)}"><td>${esc(shortId(r.env))}</td><td>${esc(shortId(r.algo))}</td><td>${esc(r.setting) || "–"}</td>`)
    for (const f of ["none", ...others]) {
      const c = r.cells.find((x) => x.filter === f)
      if (!c) {
        h.push('<td class="num" data-sort="">–</td>')
        continue
      }
      const best = c.best ? "best" : ""
      if (c.kind === "baseline") h.push(numCell(c.peak.mean, `${esc(fmtEstimate(c.peak))}${c.best ? " ★" : ""}`, best))
      // A (Δ) column holds differences only: with no none in the row there is none to show.
      else if (!c.delta) h.push(numCell(null, `– <span class="note">(no none in this row; peak ${esc(fmtEstimate(c.peak))})</span>`, best))
      else h.push(numCell(c.delta.mean, `${deltaHtml(c.delta)} <span class="note">(${esc(fmtPairs(c.delta))}; ${pct(c.peak.mean)})</span>${c.best ? " ★" : ""}`, best))
    }
    h.push("</tr>")
  }
  h.push("</tbody></table>")

  h.push('<h2 id="cells-h">Cells</h2>')
  h.push(
    '<p class="note">Every cell: both scores with their 95% intervals, the paired Δ against <code>none</code> per score (interval at the level shown, p and Holm-adjusted p), the seeds a 5-point difference would need at 80% power, and what its runs spent (mean per run).</p>'
  )
  h.push(
    '<div class="wide"><table id="cells" class="sortable"><thead><tr><th>env</th><th>algo</th><th>setting</th><th>filter</th><th>seeds</th><th>peak (%)</th><th>last-3 (%)</th><th>pairs</th><th>Δ peak</th><th>level</th><th>p (Holm)</th><th>sep.</th><th>Δ last-3</th><th>level</th><th>sep.</th><th>seeds for ±5</th><th>env steps</th><th>tokens</th><th>rollouts</th><th>opt. steps</th></tr></thead><tbody>'
  )
  for (const r of lb.rows) {
    for (const c of r.cells) {
      const d = c.delta
      const l = c.deltaLast3
      h.push(
        `<tr class="${esc(c.kind)}" data-row="${esc(r.key)}" data-filter="${esc(c.filter)}"><td>${esc(shortId(r.env))}</td><td>${esc(shortId(r.algo))}</td><td>${esc(r.setting) || "–"}</td><td>${esc(c.filter)}</td>${numCell(c.peak.n, String(c.peak.n))}${numCell(
          c.peak.mean,
          esc(fmtEstimate(c.peak, false)),
          c.best ? "best" : ""
        )}${numCell(c.last3?.mean ?? null, c.last3 ? esc(fmtEstimate(c.last3, c.last3.n !== c.peak.n)) : "–")}${numCell(d?.n ?? null, esc(fmtPairCount(d)))}${pairedCells(d)}${numCell(d?.p ?? null, d ? esc(`${fmtP(d.p)}${d.pHolm !== null ? ` (${fmtP(d.pHolm)})` : ""}`) : "–")}${sepCell(d)}${pairedCells(l, d?.n)}${sepCell(l)}${numCell(
          d?.seedsNeeded ?? null,
          d?.seedsNeeded != null ? String(d.seedsNeeded) : "–"
        )}${budgetCells(c)}</tr>`
      )
    }
  }
  h.push("</tbody></table></div>")

  if ((lb.across ?? []).length) {
    h.push('<h2 id="across-h">Across envs (per algorithm)</h2>')
    h.push(
      '<p class="note">Interquartile mean of normalized scores and the probability of improvement over <code>none</code>, over the rows of each algorithm, with 95% stratified-bootstrap intervals.</p>'
    )
    h.push(
      '<table id="across" class="sortable"><thead><tr><th>algo</th><th>filter</th><th>envs</th><th>IQM peak (%)</th><th>IQM last-3 (%)</th><th>P(&gt; none) peak</th><th>P(&gt; none) last-3</th></tr></thead><tbody>'
    )
    for (const a of lb.across) {
      h.push(
        `<tr class="${esc(a.kind)}" data-algo="${esc(a.algo)}" data-filter="${esc(a.filter)}"><td>${esc(shortId(a.algo))}</td><td>${esc(a.filter)}</td><td>${a.envs.map((e) => esc(shortId(e))).join(", ")}</td>${numCell(a.iqmPeak.value, esc(fmtAggregatePct(a.iqmPeak)))}${numCell(
          a.iqmLast3?.value ?? null,
          esc(fmtAggregatePct(a.iqmLast3))
        )}${numCell(a.improvementPeak?.value ?? null, esc(fmtProbability(a.improvementPeak)))}${numCell(a.improvementLast3?.value ?? null, esc(fmtProbability(a.improvementLast3)))}</tr>`
      )
    }
    h.push("</tbody></table>")
  }

  h.push('<h2 id="ranking-h">Filter ranking</h2>')
  h.push(
    '<p class="note">Mean rank of each filter across rows (1 = best peak success in the row; ties share ranks; the noise floor is not ranked), its mean paired Δ against <code>none</code>, the rows it appears in and the rows it wins.</p>'
  )
  h.push('<table id="ranking" class="sortable"><thead><tr><th>filter</th><th>mean rank</th><th>mean Δ (%)</th><th>rows</th><th>wins</th></tr></thead><tbody>')
  for (const e of lb.ranking) {
    h.push(
      `<tr data-filter="${esc(e.filter)}"><td>${esc(e.filter)}</td>${numCell(e.meanRank, e.meanRank.toFixed(2))}${numCell(
        e.meanDelta,
        e.meanDelta === null ? "–" : signedPct(e.meanDelta)
      )}${numCell(e.rows, String(e.rows))}${numCell(e.wins, String(e.wins))}</tr>`
    )
  }
  h.push("</tbody></table>")

  h.push('<h2 id="dynamics-h">Training dynamics</h2>')
  h.push(
    '<p class="note">Per row: the mean over seeds of each filter\'s curve (paper Fig. 5: success, retrieval accuracy, entropy; Fig. 10: kept ratio, zero-variance groups; Table 8: reward-variance statistics).</p>'
  )
  for (const g of lb.groups) {
    h.push(`<section class="group" data-group="${esc(g.key)}"><h3>${esc(g.title)}</h3><div class="charts">`)
    for (const c of g.charts) h.push(`<figure data-metric="${esc(c.metric)}" style="margin:0">${lineChart({ title: c.title, series: c.series })}</figure>`)
    h.push("</div>")
    if (g.missing.length) h.push(`<p class="note missing">Not logged by these runs: ${g.missing.map((m) => `<code>${esc(m)}</code>`).join(", ")}.</p>`)
    h.push("</section>")
  }

  h.push('<h2 id="runs-h">Runs</h2>')
  h.push(
    '<table id="runs" class="sortable"><thead><tr><th>run</th><th>env</th><th>algo</th><th>filter</th><th>seed</th><th>status</th><th>peak (%)</th><th>last-3 (%)</th><th>rollouts</th><th>opt. steps</th><th>config hash</th><th>code version</th><th>runtime</th><th>verified</th><th>files</th></tr></thead><tbody>'
  )
  for (const e of lb.entries) {
    const v = e.verified === null ? "–" : e.verified ? '<span class="ok">✓ verified</span>' : '<span class="bad">✗ mismatch</span>'
    const files = ["config.json", "metrics.jsonl", "summary.json"].map((f) => `<a href="${safeHref(`${e.path}/${f}`)}">${f.split(".")[0]}</a>`).join(" ")
    h.push(
      `<tr><td><code>${esc(e.runId)}</code></td><td>${esc(shortId(e.env))}</td><td>${esc(shortId(e.algo))}</td><td>${esc(e.filter)}</td>${numCell(e.seed, String(e.seed))}<td title="${esc(e.error ?? "")}">${esc(e.status)}</td>${numCell(
        e.peak,
        e.peak === null ? "–" : pct(e.peak)
      )}${numCell(e.last3, e.last3 === null ? "–" : pct(e.last3))}${numCell(e.budget.rollouts, fmtCount(e.budget.rollouts))}${numCell(e.budget.optimizerSteps, fmtCount(e.budget.optimizerSteps))}<td><code>${esc(e.hash)}</code></td><td>${esc(e.codeVersion)}</td><td>${esc(e.runtime)}</td><td>${v}</td><td>${files}</td></tr>`
    )
  }
  h.push("</tbody></table>")

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
  return h.join("\n") + "\n"
}
