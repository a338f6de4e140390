/**
 * The leaderboard's "agents" table: agent evaluation
 * runs (`ragen-bench eval`) read from <results>/agents/* through their schemas (a file that
 * does not decode is reported by path and left out, never read as zeros), rendered to Markdown
 * and to an HTML table (every string escaped). Runs of remote models carry reproducible: false
 * and are marked; `verifyNote` is what `leaderboard verify` prints when it skips one.
 */
import { Effect } from "effect"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { type AgentEvalConfigFile, AgentEvalConfigFile as ConfigSchema, type AgentEvalSummary, AgentEvalSummary as SummarySchema, readJsonFile } from "../../core/host.ts"
import { esc } from "./escape.ts"

export interface AgentEntry {
  readonly path: string
  readonly config: AgentEvalConfigFile
  readonly summary: AgentEvalSummary
}

export interface AgentProblem {
  readonly path: string
  readonly message: string
}

/** Every <root>/agents/<run>/ with a config.json, decoded; sorted by env, then success (best first). */
export const readAgentRuns = (root: string): Effect.Effect<{ entries: AgentEntry[]; problems: AgentProblem[] }> =>
  Effect.gen(function* () {
    const dir = join(root, "agents")
    const entries: AgentEntry[] = []
    const problems: AgentProblem[] = []
    if (!existsSync(dir)) return { entries, problems }
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name)
      if (!statSync(path).isDirectory() || !existsSync(join(path, "config.json"))) continue
      const config = yield* Effect.result(readJsonFile(ConfigSchema, join(path, "config.json")))
      if (config._tag === "Failure") {
        problems.push({ path, message: config.failure.message })
        continue
      }
      if (!existsSync(join(path, "summary.json"))) {
        problems.push({ path, message: `${path}: no summary.json (the evaluation did not finish)` })
        continue
      }
      const summary = yield* Effect.result(readJsonFile(SummarySchema, join(path, "summary.json")))
      if (summary._tag === "Failure") {
        problems.push({ path, message: summary.failure.message })
        continue
      }
      if (summary.success.status === "failed") {
        problems.push({ path, message: `${path}: the evaluation failed: ${summary.success.error ?? "no reason recorded"}` })
        continue
      }
      if (summary.success.runId !== config.success.runId) {
        problems.push({ path, message: `${path}: summary.json is of run ${summary.success.runId}, config.json of ${config.success.runId}` })
        continue
      }
      entries.push({ path, config: config.success, summary: summary.success })
    }
    entries.sort((a, b) => a.summary.env.localeCompare(b.summary.env) || b.summary.success.mean - a.summary.success.mean || a.summary.runId.localeCompare(b.summary.runId))
    return { entries, problems }
  })

const pct = (x: number) => (100 * x).toFixed(1)
const interval = (i: { mean: number; lo: number; hi: number }, asPct: boolean) =>
  asPct ? `${pct(i.mean)} [${pct(i.lo)}, ${pct(i.hi)}]` : `${i.mean.toFixed(3)} [${i.lo.toFixed(3)}, ${i.hi.toFixed(3)}]`

/** Why verify leaves a run alone (undefined: it can be re-run). */
export const verifyNote = (c: AgentEvalConfigFile): string | undefined => (c.reproducible ? undefined : `skipped: remote model, not reproducible bit for bit${c.note ? ` (${c.note})` : ""}`)

export const agentsMarkdown = (entries: ReadonlyArray<AgentEntry>): string => {
  const md = (s: string) => s.replace(/\|/g, "\\|").replace(/[\r\n]+/g, " ")
  const L = ["| env | agent | episodes | T | success % [95% Wilson] | return [95% bootstrap] | reproducible |", "|---|---|---|---|---|---|---|"]
  for (const e of entries) {
    const s = e.summary
    L.push(
      `| ${md(s.env)} | ${md(s.agent)} | ${s.episodes} | ${e.config.config.temperature} | ${interval(s.success, true)} | ${interval(s.return, false)} | ${s.reproducible ? "yes" : "no (remote)"} |`
    )
  }
  return L.join("\n")
}

/** An HTML section (sortable like the leaderboard's tables: numbers in data-sort). */
export const agentsHtml = (entries: ReadonlyArray<AgentEntry>, linkTo: (e: AgentEntry, file: string) => string): string => {
  const h: string[] = ['<h2 id="agents-h">Agents</h2>']
  h.push(
    '<p class="note">Evaluations of served models and checkpoints (<code>ragen-bench eval</code>): success with a 95% Wilson interval, mean return with a 95% percentile-bootstrap interval. Runs of remote models are not reproducible bit for bit and are not verified.</p>'
  )
  h.push('<table id="agents" class="sortable"><thead><tr><th>env</th><th>agent</th><th>episodes</th><th>T</th><th>success %</th><th>return</th><th>reproducible</th><th>files</th></tr></thead><tbody>')
  for (const e of entries) {
    const s = e.summary
    const files = ["config.json", "metrics.jsonl", "summary.json"]
      .filter((f) => existsSync(join(e.path, f)))
      .map((f) => `<a href="${esc(linkTo(e, f))}">${f.split(".")[0]}</a>`)
      .join(" ")
    h.push(
      `<tr data-run="${esc(s.runId)}"><td>${esc(s.env)}</td><td>${esc(s.agent)}</td><td class="num" data-sort="${s.episodes}">${s.episodes}</td><td class="num">${esc(e.config.config.temperature)}</td><td class="num" data-sort="${s.success.mean}">${esc(interval(s.success, true))}</td><td class="num" data-sort="${s.return.mean}">${esc(interval(s.return, false))}</td><td title="${esc(e.config.note ?? "")}">${s.reproducible ? "yes" : '<span class="bad">no (remote)</span>'}</td><td>${files}</td></tr>`
    )
  }
  h.push("</tbody></table>")
  return h.join("\n")
}
