/**
 * A diagnosis as text for the terminal and as a static HTML page (no external assets; every
 * string escaped; the leaderboard's SVG chart renderer for the reward-variance profile and
 * the filters' kept ratios).
 */
import type { MiProxies } from "../../core/host.ts"
import { esc, lineChart } from "../leaderboard/index.ts"
import type { DiagnoseReport } from "./diagnose.ts"

const f = (x: number | null | undefined, d = 3): string => (x === null || x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(d))

const miLine = (name: string, p: MiProxies | null): string =>
  p === null
    ? `${name}: no rows`
    : `${name} (${p.rows} rows × ${p.cols} prompts): retrieval ${f(p.retrievalAcc)} (chance ${f(p.chance)})  MI-Est ${f(p.miEst)}  MI-Seq-Est ${f(p.miSeqEst)} / log N ${f(p.miUpperBound)}  H(Z|X) ${f(p.hZGivenX)}  H(Z) ${f(p.hZ)}  regime ${p.regime}`

export const renderText = (r: DiagnoseReport): string => {
  const s = r.rollout
  const L: string[] = []
  L.push(`diagnose ${r.agent} on ${r.env}: P=${r.P} × G=${r.G} at T=${r.temperature} (seeds ${r.seeds[0]}..${r.seeds.at(-1)})${r.reproducible ? "" : "  [remote: not reproducible bit for bit]"}`)
  L.push(`rollout   success ${f(s.success)}  return ${f(s.return)}  format valid ${f(s.format_valid)}  action valid ${f(s.action_valid)}`)
  L.push(`reasoning ${f(s.reasoning_words, 1)} words, ${f(s.response_tokens, 1)} tokens per turn  fact accuracy ${f(s.fact_accuracy)}  consistency ${f(s.consistency)} (teacher-graded)`)
  L.push(`entropy   ${f(r.entropy.value)}  (${r.entropy.method})`)
  if (r.mi.skipped) L.push(`MI        skipped: ${r.mi.skipped}`)
  else {
    L.push(miLine("MI first turn", r.mi.firstTurn))
    L.push(miLine("MI trajectory", r.mi.trajectory))
  }
  const rv = r.rewardVariance
  L.push(`reward variance (std of the G returns of each group): mean ${f(rv.mean)}  std ${f(rv.std)}  min ${f(rv.min)}  max ${f(rv.max)}  zero-spread groups ${rv.zeroGroups}/${r.P}`)
  for (const g of rv.groups) L.push(`  group ${String(g.group).padStart(2)}  seed ${g.seed}  std ${f(g.rv)}  mean return ${f(g.returns.reduce((a, b) => a + b, 0) / Math.max(1, g.returns.length))}`)
  L.push("filters at their default options (what each would keep of this batch):")
  const w = Math.max(6, ...r.filters.map((x) => x.id.length))
  L.push(`  ${"filter".padEnd(w)}  kept groups  kept traj.  dropped with spread`)
  for (const x of r.filters) {
    if (!x.ok) L.push(`  ${x.id.padEnd(w)}  (not run: ${x.error})`)
    else
      L.push(
        `  ${x.id.padEnd(w)}  ${`${x.keptGroups.length}/${r.P}`.padStart(11)}  ${String(x.stats["filter/kept_trajectories"] ?? 0).padStart(10)}  ${String(x.stats["filter/dropped_nonzero"] ?? 0).padStart(19)}   [${x.keptGroups.join(" ")}]`
      )
  }
  return L.join("\n")
}

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:1100px;padding:0 1rem;color:#111}
h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:1.6rem}table{border-collapse:collapse;margin:.4rem 0}
th,td{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:.5rem}.chart .ct{font-size:12px;font-weight:600}.chart .tick,.chart .lg{font-size:10px;fill:#333}
.chart .grid{stroke:#e4e4e4}.chart .frame{fill:none;stroke:#999}.note{color:#666;font-size:12px}.warn{color:#a11}`

/** Horizontal bars with labels (a category per bar: the filters), values in [0, 1]. */
export const barChart = (title: string, bars: ReadonlyArray<{ label: string; value: number }>): string => {
  const W = 420,
    left = 150,
    bh = 16,
    gap = 4,
    top = 24
  const H = top + bars.length * (bh + gap) + 8
  const pw = W - left - 50
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}"><title>${esc(title)}</title><text x="4" y="15" class="ct">${esc(title)}</text>`
  ]
  bars.forEach((b, i) => {
    const y = top + i * (bh + gap)
    const v = Math.max(0, Math.min(1, b.value))
    parts.push(`<text x="${left - 6}" y="${y + 12}" text-anchor="end" class="tick">${esc(b.label)}</text>`)
    parts.push(`<rect x="${left}" y="${y}" width="${(pw * v).toFixed(1)}" height="${bh}" fill="#0072B2" data-bar="${esc(b.label)}"/>`)
    parts.push(`<text x="${(left + pw * v + 4).toFixed(1)}" y="${y + 12}" class="tick">${f(b.value, 2)}</text>`)
  })
  parts.push("</svg>")
  return parts.join("")
}

const row = (k: string, v: string, note = ""): string => `<tr><th>${esc(k)}</th><td class="num">${esc(v)}</td><td class="note">${esc(note)}</td></tr>`

const miTable = (name: string, p: MiProxies | null): string => {
  if (!p) return `<p class="note">${esc(name)}: no rows.</p>`
  return `<h3>${esc(name)} (${p.rows} rows × ${p.cols} prompts)</h3><table class="mi" data-mode="${esc(name)}"><tbody>${[
    row("Retrieval-Acc", f(p.retrievalAcc), `chance ${f(p.chance)}`),
    row("Recall@2 / @4 / @8", `${f(p.recallAt2)} / ${f(p.recallAt4)} / ${f(p.recallAt8)}`),
    row("MI-Est (per token)", f(p.miEst)),
    row("MI-Seq-Est", f(p.miSeqEst), `upper bound log N = ${f(p.miUpperBound)}`),
    row("MI-ZScore", f(p.miZScore)),
    row("H(Z|X)", f(p.hZGivenX), "nats/token"),
    row("H(Z)", f(p.hZ), "nats/token"),
    row("regime", p.regime)
  ].join("")}</tbody></table>`
}

export const renderHtml = (r: DiagnoseReport): string => {
  const s = r.rollout
  const h: string[] = []
  h.push("<!doctype html>", '<html lang="en"><head><meta charset="utf-8">')
  h.push(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`)
  h.push(`<title>ragen-bench diagnose: ${esc(r.agent)} on ${esc(r.env)}</title><style>${CSS}</style></head><body>`)
  h.push(`<h1>Template-collapse diagnosis: ${esc(r.agent)} on ${esc(r.env)}</h1>`)
  h.push(
    `<p>P = ${r.P} prompts (seeds ${r.seeds[0]}–${r.seeds.at(-1)}) × G = ${r.G} trajectories at temperature ${r.temperature}, seed ${r.seed}.${r.reproducible ? "" : ' <span class="warn">Remote model: not reproducible bit for bit.</span>'}</p>`
  )
  h.push('<h2 id="rollout">Rollout and reasoning</h2><table id="summary"><tbody>')
  h.push(row("success", f(s.success)), row("return", f(s.return)), row("format valid", f(s.format_valid)), row("action valid", f(s.action_valid)))
  h.push(row("reasoning length", `${f(s.reasoning_words, 1)} words`, `${f(s.response_tokens, 1)} tokens per turn`))
  h.push(row("fact accuracy", f(s.fact_accuracy), "teacher-graded facts of the reasoning"), row("consistency", f(s.consistency), "action follows from the stated plan"))
  h.push(row("entropy", f(r.entropy.value), r.entropy.method))
  h.push("</tbody></table>")
  h.push('<h2 id="mi">MI proxies</h2>')
  if (r.mi.skipped) h.push(`<p class="note">Skipped: ${esc(r.mi.skipped)}</p>`)
  else h.push(miTable("first turn", r.mi.firstTurn), miTable("trajectory", r.mi.trajectory))
  const rv = r.rewardVariance
  h.push('<h2 id="rv">Reward-variance profile and filters</h2>')
  h.push(
    `<p class="note">Std of the G returns of each group: mean ${f(rv.mean)}, std ${f(rv.std)}, min ${f(rv.min)}, max ${f(rv.max)}; ${rv.zeroGroups} of ${r.P} groups have no spread (no learning signal for group-relative advantages).</p>`
  )
  const sorted = [...rv.groups].sort((a, b) => b.rv - a.rv)
  const ok = r.filters.filter((x): x is Extract<typeof x, { ok: true }> => x.ok)
  h.push('<div class="charts">')
  if (sorted.length > 0)
    h.push(
      `<figure data-chart="rv" style="margin:0">${lineChart({ title: "reward std per group, sorted", series: [{ name: "std of returns", points: sorted.map((g, i) => [i + 1, g.rv] as [number, number]) }], xLabel: "group rank" })}</figure>`
    )
  if (ok.length > 0)
    h.push(
      `<figure data-chart="kept" style="margin:0">${barChart(
        "share of groups each filter keeps",
        ok.map((x) => ({ label: x.id.replace(/^filters\//, ""), value: x.stats["filter/kept_ratio"] ?? 0 }))
      )}</figure>`
    )
  h.push("</div>")
  h.push('<table id="groups"><thead><tr><th>group</th><th>seed</th><th>std</th><th>returns</th></tr></thead><tbody>')
  for (const g of rv.groups) h.push(`<tr><td class="num">${g.group}</td><td class="num">${g.seed}</td><td class="num">${f(g.rv)}</td><td>${esc(g.returns.map((x) => f(x, 2)).join(" "))}</td></tr>`)
  h.push("</tbody></table>")
  h.push('<table id="filters"><thead><tr><th>filter (default options)</th><th>kept groups</th><th>kept trajectories</th><th>dropped with spread</th><th>groups kept</th></tr></thead><tbody>')
  for (const x of r.filters) {
    if (!x.ok) h.push(`<tr><td>${esc(x.id)}</td><td colspan="4" class="note">not run: ${esc(x.error)}</td></tr>`)
    else
      h.push(
        `<tr data-filter="${esc(x.id)}"><td>${esc(x.id)}</td><td class="num">${x.keptGroups.length}/${r.P}</td><td class="num">${x.stats["filter/kept_trajectories"] ?? 0}</td><td class="num">${x.stats["filter/dropped_nonzero"] ?? 0}</td><td>${esc(x.keptGroups.join(" "))}</td></tr>`
      )
  }
  h.push("</tbody></table></body></html>")
  return h.join("\n") + "\n"
}
