/**
 * Side-by-side episodes: two cells of one row on the same seed (so the same warm start, the same
 * training instances and the same validation states) at the same evaluation steps, none on the
 * left and the other cell on the right; the noise floor (none on another sampling stream) is
 * marked as such. One page per pair under <site>/episodes/vs-<hash>.html; no script (the step is
 * the URL's #fragment, as on the run pages); every string escaped.
 */
import { createHash } from "node:crypto"
import { join } from "node:path"
import { type SampleEpisode, type SamplesLine, writeFileAtomic } from "../../core/host.ts"
import type { ComparePage } from "./context.ts"
import { EPISODES_DIR, episodePage, MAX_PAGE_EPISODES, MAX_PAGE_STEPS } from "./episodes.ts"
import { esc } from "./escape.ts"
import type { Entry } from "./schema.ts"
import { thin } from "./build.ts"

const pre = (s: string): string => `<pre>${esc(s)}</pre>`

const side = (e: SampleEpisode | undefined): string => {
  if (!e) return "<td>–</td>"
  const outcome = e.success ? '<span class="ok">success</span>' : '<span class="bad">no success</span>'
  const turns = e.turns.map((u, i) => `<p class="note">turn ${i + 1} · action <code>${esc(u.action)}</code> · reward ${u.reward.toFixed(2)}</p>${pre(u.response ?? u.reasoning)}`).join("")
  return `<td>${outcome} · return ${e.return.toFixed(2)} · ${e.turns.length} turns${turns}</td>`
}

const label = (e: Entry): string => (e.samplingStream !== 0 && e.filter.startsWith("none′") ? `${e.filter} — the noise floor` : e.filter)

/** One pair's page: the steps both runs evaluated, each a table of the shared validation seeds. */
export const renderComparePage = (a: Entry, b: Entry, la: ReadonlyArray<SamplesLine>, lb: ReadonlyArray<SamplesLine>): string => {
  const byStep = new Map(lb.map((l) => [l.step, l]))
  const steps = thin(
    la.filter((l) => byStep.has(l.step)),
    MAX_PAGE_STEPS
  )
  const h: string[] = ['<p><a href="index.html">all episodes</a> · <a href="../index.html">leaderboard</a></p>']
  h.push(`<h1>Side by side: ${esc(label(a))} | ${esc(label(b))}, seed ${a.seed}</h1>`)
  h.push(
    `<p>${esc(a.env)} · ${esc(a.algo)}. Both runs have seed ${a.seed}: the same warm start, the same training instances and the same validation states, so the episodes of a row below start from one state. Runs <code>${esc(a.runId)}</code> and <code>${esc(b.runId)}</code>.</p>`
  )
  if (b.filter.startsWith("none′")) h.push('<p class="floor"><b>The right-hand run is the noise floor</b>: none again with only the sampling stream changed. What differs here is chance.</p>')
  h.push(`<nav class="steps">${steps.map((l) => `<a href="#step-${l.step}">${l.step}</a>`).join("")}</nav><p class="note">Pick a step (the last one is shown until you do).</p><main>`)
  for (const l of steps) {
    const r = byStep.get(l.step)!
    const seeds = [...new Set([...l.episodes, ...r.episodes].map((e) => e.seed))].slice(0, MAX_PAGE_EPISODES)
    const ok = (xs: ReadonlyArray<SampleEpisode>) => `${xs.filter((e) => e.success).length}/${xs.length}`
    h.push(`<section class="step" id="step-${l.step}"><h3>step ${l.step}: ${esc(a.filter)} ${ok(l.episodes)} successes · ${esc(b.filter)} ${ok(r.episodes)}</h3>`)
    h.push(`<div class="wide"><table><thead><tr><th>validation seed</th><th>${esc(label(a))}</th><th>${esc(label(b))}</th></tr></thead><tbody>`)
    for (const s of seeds) h.push(`<tr><td class="num">${s}</td>${side(l.episodes.find((e) => e.seed === s))}${side(r.episodes.find((e) => e.seed === s))}</tr>`)
    h.push("</tbody></table></div></section>")
  }
  h.push("</main>")
  return episodePage(`side by side: ${a.runId} | ${b.runId}`, h.join("\n"))
}

/** Every pair (none, other cell) of a row that kept samples at the same seed: write its page; returns them. */
export const writeComparePages = (entries: ReadonlyArray<Entry>, samples: ReadonlyMap<string, ReadonlyArray<SamplesLine>>, siteDir: string): ComparePage[] => {
  const groups = new Map<string, Entry[]>()
  for (const e of entries) {
    if (e.status !== "complete" || !samples.has(e.runId)) continue
    const k = `${e.rowKey}\u0000${e.seed}`
    groups.set(k, [...(groups.get(k) ?? []), e])
  }
  const out: ComparePage[] = []
  for (const group of groups.values()) {
    const base = group.find((e) => e.filter === "none" && e.samplingStream === 0)
    if (!base) continue
    for (const other of group.filter((e) => e !== base).sort((x, y) => x.filter.localeCompare(y.filter))) {
      const hash = createHash("sha256").update(`${base.runId}\u0000${other.runId}`).digest("hex").slice(0, 16)
      const href = `${EPISODES_DIR}/vs-${hash}.html`
      writeFileAtomic(join(siteDir, href), renderComparePage(base, other, samples.get(base.runId)!, samples.get(other.runId)!))
      out.push({ rowKey: base.rowKey, seed: base.seed, a: base.filter, b: other.filter, href })
    }
  }
  return out
}

/** The episodes index's list of side-by-side pages. */
export const compareIndexHtml = (pages: ReadonlyArray<ComparePage>, entries: ReadonlyArray<Entry>): string => {
  if (pages.length === 0) return ""
  const envOf = new Map(entries.map((e) => [e.rowKey, `${e.env} · ${e.algo}`]))
  const rows = pages.map(
    (p) => `<tr><td>${esc(envOf.get(p.rowKey) ?? "")}</td><td class="num">${p.seed}</td><td><a href="./${esc(p.href.slice(EPISODES_DIR.length + 1))}">${esc(p.a)} | ${esc(p.b)}</a></td></tr>`
  )
  return `<h2 id="side-by-side">Side by side</h2><p class="note">Two cells of one row on the same seed: the same warm start and instances, the same validation states.</p><table><thead><tr><th>row</th><th>seed</th><th>pair</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
}
