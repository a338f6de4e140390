/**
 * Episode pages (docs/decisions.md#issue-17, "see the collapse"): per run with a samples.jsonl, one static page
 * under <site>/episodes/ that shows the episodes each evaluation kept, so a reader can watch the
 * reasoning turn into a template as the MI and fact-accuracy curves fall. At the top, the first
 * turn's reasoning of each kept seed at every step side by side (the same states every time); below,
 * the steps as a list of links, each step's episodes turn by turn with the teacher's facts.
 * No JavaScript: the selected step is the URL's #fragment (CSS :target; the last step when none
 * is). Every string from a result file goes through `esc`, and the page's Content-Security-Policy
 * allows no script at all.
 */
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { join, relative, resolve } from "node:path"
import { readSamples, type RunRead, type SampleEpisode, SAMPLES_FILE, type SamplesLine, writeFileAtomic } from "../../core/host.ts"
import { samplingStreamOf, thin } from "./build.ts"
import { esc } from "./escape.ts"
import type { Problem } from "./schema.ts"

export const EPISODES_DIR = "episodes"
/** Evaluations on a page at most (evenly spaced, the last kept) and episodes shown per evaluation. */
export const MAX_PAGE_STEPS = 100
export const MAX_PAGE_EPISODES = 8

/** The page of a run, relative to the site folder: the run id when it is a plain file name, else its hash. */
export const episodesPagePath = (runId: string): string =>
  `${EPISODES_DIR}/${/^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$/.test(runId) ? runId : `run-${createHash("sha256").update(runId).digest("hex").slice(0, 16)}`}.html`

export const EPISODE_CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:1400px;padding:0 1rem;color:#111}
h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:1.6rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.25rem .4rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
pre{margin:0;white-space:pre-wrap;word-break:break-word;font-size:12px;max-width:34rem}
.note{color:#666;font-size:12px}.ok{color:#11661d}.bad{color:#a11}code{font-size:12px}
nav.steps a{display:inline-block;margin:0 .4rem .3rem 0;padding:.05rem .35rem;border:1px solid #ccc;border-radius:3px;text-decoration:none}
.step{display:none}.step:target{display:block}
main:not(:has(.step:target)) .step:last-of-type{display:block}
details{margin:.3rem 0}summary{cursor:pointer}.floor{background:#f3f3f8;padding:0 .3rem}.wide{overflow-x:auto;max-width:100%}
`.trim()

export const episodePage = (title: string, body: string): string =>
  [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    // No script may run on these pages: every byte of the samples is someone else's text.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title><style>${EPISODE_CSS}</style></head><body>`,
    body,
    "</body></html>",
    ""
  ].join("\n")

const num = (x: number | null, digits = 2): string => (x === null ? "–" : x.toFixed(digits))
const pre = (s: string): string => `<pre>${esc(s)}</pre>`
const mean = (xs: ReadonlyArray<number>): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length)

/** Mean teacher-graded fact accuracy over the graded turns of some episodes. */
const factAccuracyOf = (episodes: ReadonlyArray<SampleEpisode>): number | null => mean(episodes.flatMap((e) => e.turns.flatMap((u) => (u.factAccuracy === null ? [] : [u.factAccuracy]))))

const episodeHtml = (e: SampleEpisode, open: boolean): string => {
  const h: string[] = []
  const outcome = e.success ? '<span class="ok">success</span>' : '<span class="bad">no success</span>'
  h.push(
    `<details data-seed="${e.seed}"${open ? " open" : ""}><summary>seed ${e.seed} · ${outcome} · return ${num(e.return)} · ${e.turns.length} turns${e.omittedTurns ? ` (+${e.omittedTurns} left out)` : ""}</summary>`
  )
  h.push("<table><thead><tr><th>turn</th><th>prompt</th><th>reasoning</th><th>action</th><th>reward</th><th>teacher's facts</th><th>fact acc.</th><th>consist.</th></tr></thead><tbody>")
  e.turns.forEach((u, i) => {
    const reasoning = u.response !== undefined ? `${pre(u.reasoning)}<p class="note">did not parse; the response:</p>${pre(u.response)}` : pre(u.reasoning)
    const facts = u.facts === null ? '<span class="note">–</span>' : pre(u.facts.join("\n"))
    h.push(
      `<tr><td class="num">${i + 1}</td><td>${pre(u.prompt)}</td><td>${reasoning}</td><td>${pre(u.action)}</td><td class="num">${num(u.reward)}</td><td>${facts}</td><td class="num">${num(u.factAccuracy)}</td><td class="num">${num(u.consistency)}</td></tr>`
    )
  })
  h.push("</tbody></table></details>")
  return h.join("\n")
}

export interface EpisodesRun {
  readonly runId: string
  readonly env: string
  readonly algo: string
  readonly filter: string
  readonly seed: number
  /** The rollout sampling stream; none on a stream ≠ 0 is the noise floor. */
  readonly samplingStream?: number
}

/** "the noise floor" for none on another sampling stream, else "". */
export const noiseFloorNote = (run: { readonly filter: string; readonly samplingStream?: number }): string =>
  /(^|\/)none$/.test(run.filter) && (run.samplingStream ?? 0) !== 0 ? `noise floor: none on sampling stream ${run.samplingStream}, the same seed's instances and warm start` : ""

/** One run's page: the first-turn reasoning across steps, then the steps and their episodes. */
export const renderEpisodesPage = (run: EpisodesRun, allLines: ReadonlyArray<SamplesLine>): string => {
  const lines = thin(allLines, MAX_PAGE_STEPS).map((l) => ({ ...l, episodes: l.episodes.slice(0, MAX_PAGE_EPISODES) }))
  const h: string[] = []
  h.push(`<p><a href="index.html">all runs</a> · <a href="../index.html">leaderboard</a></p>`)
  h.push(`<h1>Episodes of <code>${esc(run.runId)}</code></h1>`)
  const floor = noiseFloorNote(run)
  if (floor) h.push(`<p class="floor"><b>${esc(floor)}</b>: what a difference of nothing looks like.</p>`)
  h.push(
    `<p>${esc(run.env)} · ${esc(run.algo)} · filter ${esc(run.filter)} · seed ${run.seed}. ${allLines.length} evaluations${allLines.length > lines.length ? ` (${lines.length} shown, evenly spaced)` : ""}.</p>`
  )
  h.push(
    "<p class=\"note\">The episodes each evaluation kept (samples.jsonl): the first validation seeds at the headline temperature, so every step shows the same start states. Fact accuracy and consistency are the teacher's grades of the policy's reasoning for the state the prompt showed; the teacher's facts are what is true of that state.</p>"
  )

  // The collapse at a glance: the same first states, step after step; a template is one text for
  // different states (fewer distinct texts than distinct states in a row).
  const seeds = [...new Set(lines.flatMap((l) => l.episodes.map((e) => e.seed)))].slice(0, MAX_PAGE_EPISODES)
  h.push('<h2 id="first-turns">First-turn reasoning across steps</h2>')
  h.push('<table class="first"><thead><tr><th>step</th><th title="distinct first-turn texts / distinct start states">texts / states</th>')
  for (const seed of seeds) {
    const first = lines.flatMap((l) => l.episodes).find((e) => e.seed === seed && e.turns[0]?.facts)
    const facts = first?.turns[0]?.facts
    h.push(`<th>seed ${seed}${facts ? `<br><span class="note">facts: ${esc(facts.join("; "))}</span>` : ""}</th>`)
  }
  h.push("</tr></thead><tbody>")
  for (const l of lines) {
    const firsts = l.episodes.flatMap((e) => (e.turns[0] ? [e.turns[0]] : []))
    const texts = new Set(firsts.map((u) => u.response ?? u.reasoning)).size
    const states = new Set(firsts.map((u) => (u.facts ? JSON.stringify(u.facts) : u.prompt))).size
    h.push(`<tr><td class="num"><a href="#step-${l.step}">${l.step}</a></td><td class="num${texts < states ? " bad" : ""}">${texts} / ${states}</td>`)
    for (const seed of seeds) {
      const u = l.episodes.find((e) => e.seed === seed)?.turns[0]
      h.push(u ? `<td>${pre(u.response ?? u.reasoning)}<span class="note">fact acc. ${num(u.factAccuracy)}</span></td>` : "<td>–</td>")
    }
    h.push("</tr>")
  }
  h.push("</tbody></table>")

  h.push('<h2 id="steps">Steps</h2>')
  h.push(
    `<nav class="steps">${lines
      .map((l) => {
        const ok = l.episodes.filter((e) => e.success).length
        return `<a href="#step-${l.step}" title="${ok}/${l.episodes.length} successes, fact accuracy ${num(factAccuracyOf(l.episodes))}">${l.step}</a>`
      })
      .join("")}</nav>`
  )
  h.push('<p class="note">Pick a step (the last one is shown until you do).</p><main>')
  for (const l of lines) {
    const ok = l.episodes.filter((e) => e.success).length
    h.push(`<section class="step" id="step-${l.step}"><h3>step ${l.step} · T=${l.temperature} · ${ok}/${l.episodes.length} successes · fact accuracy ${num(factAccuracyOf(l.episodes))}</h3>`)
    l.episodes.forEach((e, i) => h.push(episodeHtml(e, i === 0)))
    h.push("</section>")
  }
  h.push("</main>")
  return episodePage(`episodes: ${run.runId}`, h.join("\n"))
}

export interface EpisodesIndexEntry extends EpisodesRun {
  readonly href: string
  readonly evaluations: number
}

export const renderEpisodesIndex = (entries: ReadonlyArray<EpisodesIndexEntry>, problems: ReadonlyArray<Problem>, sideBySide = ""): string => {
  const h: string[] = ['<p><a href="../index.html">leaderboard</a></p>', "<h1>Episodes</h1>"]
  if (entries.length === 0) h.push("<p>No run kept samples (samples.jsonl; the trainer option <code>evalSamples</code>).</p>")
  else {
    h.push("<table><thead><tr><th>run</th><th>env</th><th>algo</th><th>filter</th><th>seed</th><th>evaluations</th></tr></thead><tbody>")
    for (const e of entries) {
      const href = e.href.split("/").map(encodeURIComponent).join("/")
      const floor = noiseFloorNote(e) ? ' <span class="floor">noise floor</span>' : ""
      h.push(
        `<tr><td><a href="./${esc(href)}"><code>${esc(e.runId)}</code></a></td><td>${esc(e.env)}</td><td>${esc(e.algo)}</td><td>${esc(e.filter)}${floor}</td><td class="num">${e.seed}</td><td class="num">${e.evaluations}</td></tr>`
      )
    }
    h.push("</tbody></table>")
  }
  if (sideBySide) h.push(sideBySide)
  if (problems.length > 0) {
    h.push('<h2>Files left out</h2><ul id="problems">')
    for (const p of problems) h.push(`<li><code>${esc(p.path)}</code>: ${esc(p.message)}</li>`)
    h.push("</ul>")
  }
  return episodePage("ragen-bench episodes", h.join("\n"))
}

export interface EpisodePagesWritten {
  readonly index: string
  /** Run id → the page, relative to the site folder. */
  readonly pages: ReadonlyMap<string, string>
  /** Run id → its samples (what the pages show), for the side-by-side pages. */
  readonly samples: ReadonlyMap<string, ReadonlyArray<SamplesLine>>
  readonly problems: ReadonlyArray<Problem>
}

/** Read each run's samples.jsonl (through its Schema) and write its page and the index under <site>/episodes/. */
export const writeEpisodePages = (
  runs: ReadonlyArray<{ readonly run: RunRead }>,
  siteDir: string,
  sideBySide: (samples: ReadonlyMap<string, ReadonlyArray<SamplesLine>>) => string = () => ""
): Effect.Effect<EpisodePagesWritten> =>
  Effect.gen(function* () {
    const rel = (p: string): string => relative(resolve(siteDir), resolve(p)).split("\\").join("/")
    const entries: EpisodesIndexEntry[] = []
    const problems: Problem[] = []
    const pages = new Map<string, string>()
    const samples = new Map<string, ReadonlyArray<SamplesLine>>()
    for (const { run } of [...runs].sort((a, b) => a.run.config.runId.localeCompare(b.run.config.runId))) {
      const path = join(run.dir, SAMPLES_FILE)
      // A link in place of samples.jsonl is refused, not followed (an input folder is someone's data).
      const r = yield* Effect.result(readSamples(path, { noFollow: true }))
      if (r._tag === "Failure") {
        // Messages name the file: shown relative to the site, never as an absolute path.
        problems.push({ path: rel(path), message: r.failure.message.split(resolve(path)).join(rel(path)).split(path).join(rel(path)) })
        continue
      }
      if (r.success.tornLastLine) problems.push({ path: rel(path), message: "torn last line (a killed writer) left out" })
      if (r.success.lines.length === 0) continue
      const runId = run.config.runId
      if (pages.has(runId)) {
        problems.push({ path: rel(path), message: `another folder holds run ${runId}; its page shows the first` })
        continue
      }
      const c = run.config.config
      const info: EpisodesRun = { runId, env: c.env, algo: c.algo, filter: c.filter, seed: c.seed, samplingStream: samplingStreamOf(c) }
      samples.set(runId, r.success.lines)
      const file = episodesPagePath(runId)
      writeFileAtomic(join(siteDir, file), renderEpisodesPage(info, r.success.lines))
      pages.set(runId, file)
      entries.push({ ...info, href: file.slice(EPISODES_DIR.length + 1), evaluations: r.success.lines.length })
    }
    const index = join(siteDir, EPISODES_DIR, "index.html")
    writeFileAtomic(index, renderEpisodesIndex(entries, problems, sideBySide(samples)))
    return { index, pages, problems, samples }
  })
