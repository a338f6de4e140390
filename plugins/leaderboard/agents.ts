/**
 * The leaderboard's "agents" table: agent evaluation
 * runs (`ragen-bench eval`) read from <results>/agents/* through their schemas (a file that
 * does not decode is reported by path and left out, never read as zeros), rendered to Markdown
 * and to an HTML table (every string escaped). Runs of remote models carry reproducible: false
 * and are marked; `verifyNote` is what `leaderboard verify` prints when it skips one.
 */
import { Effect } from "effect"
import { lstatSync, readdirSync } from "node:fs"
import { join } from "node:path"
import {
  type AgentEvalConfigFile,
  AgentEvalConfigFile as ConfigSchema,
  type AgentEvalSummary,
  AgentEvalSummary as SummarySchema,
  type MetricsLine,
  readJsonFile,
  readMetrics
} from "../../core/host.ts"
import { cutLabel } from "./cut.ts"
import { esc } from "./escape.ts"
import { md } from "./markdown.ts"

/** The files of an agent run, in the order the table links them. */
export const AGENT_FILES = ["config.json", "metrics.jsonl", "summary.json"] as const
export type AgentFile = (typeof AGENT_FILES)[number]

export interface AgentEntry {
  readonly path: string
  readonly config: AgentEvalConfigFile
  readonly summary: AgentEvalSummary
  /** metrics.jsonl decoded (one line per episode); undefined when the run has none. */
  readonly metrics?: ReadonlyArray<MetricsLine>
}

export interface AgentProblem {
  readonly path: string
  readonly message: string
}

type Kind = "absent" | "link" | "folder" | "file" | "special"

/** What is at `path`, looked at without following a link. */
const kindAt = (path: string): Kind => {
  const st = lstatSync(path, { throwIfNoEntry: false })
  if (!st) return "absent"
  if (st.isSymbolicLink()) return "link"
  if (st.isDirectory()) return "folder"
  return st.isFile() ? "file" : "special"
}

const refusal = (path: string, kind: Kind, what: string): string =>
  kind === "link"
    ? `${path} is a symbolic link; links in an input folder are not followed, ${what} left out`
    : kind === "special"
      ? `${path} is not a regular file or folder (a FIFO, device or socket), ${what} left out`
      : `${path} is not a folder, ${what} left out`

/** One <root>/agents/<run>/ folder, every file decoded (none followed through a link); a problem when it cannot be. */
const readAgentRun = (path: string): Effect.Effect<AgentEntry | AgentProblem | undefined> =>
  Effect.gen(function* () {
    const kind = kindAt(path)
    if (kind === "link" || kind === "special") return { path, message: refusal(path, kind, "the entry") }
    if (kind !== "folder" || kindAt(join(path, "config.json")) === "absent") return undefined
    const config = yield* Effect.result(readJsonFile(ConfigSchema, join(path, "config.json"), { noFollow: true }))
    if (config._tag === "Failure") return { path, message: config.failure.message }
    if (kindAt(join(path, "summary.json")) === "absent") return { path, message: `${path}: no summary.json (the evaluation did not finish)` }
    const summary = yield* Effect.result(readJsonFile(SummarySchema, join(path, "summary.json"), { noFollow: true }))
    if (summary._tag === "Failure") return { path, message: summary.failure.message }
    if (summary.success.status === "failed") return { path, message: `${path}: the evaluation failed: ${summary.success.error ?? "no reason recorded"}` }
    if (summary.success.runId !== config.success.runId) return { path, message: `${path}: summary.json is of run ${summary.success.runId}, config.json of ${config.success.runId}` }
    // metrics.jsonl is decoded like a run's (regular file, size cap, every line a metrics line); the site shows what decoded.
    const metricsPath = join(path, "metrics.jsonl")
    if (kindAt(metricsPath) === "absent") return { path, config: config.success, summary: summary.success }
    const metrics = yield* Effect.result(readMetrics(metricsPath, { noFollow: true }))
    if (metrics._tag === "Failure") return { path, message: metrics.failure.message }
    return { path, config: config.success, summary: summary.success, metrics: metrics.success.lines }
  })

/**
 * Every <root>/agents/<run>/ with a config.json, decoded; sorted by env, then success (best first).
 * The folder is someone's data: `agents` itself, and each entry in it, is looked at without
 * following links; a link, a file where a folder belongs, a FIFO or a device is one problem
 * naming it, and is left out.
 */
export const readAgentRuns = (root: string): Effect.Effect<{ entries: AgentEntry[]; problems: AgentProblem[] }> =>
  Effect.gen(function* () {
    const dir = join(root, "agents")
    const entries: AgentEntry[] = []
    const problems: AgentProblem[] = []
    const kind = kindAt(dir)
    if (kind === "absent") return { entries, problems }
    if (kind !== "folder") return { entries, problems: [{ path: dir, message: refusal(dir, kind, "its agent evaluations") }] }
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch (e) {
      return { entries, problems: [{ path: dir, message: `cannot list ${dir}: ${(e as Error).message}` }] }
    }
    for (const name of names.sort()) {
      const r = yield* readAgentRun(join(dir, name))
      if (r === undefined) continue
      if ("config" in r) entries.push(r)
      else problems.push(r)
    }
    entries.sort((a, b) => a.summary.env.localeCompare(b.summary.env) || b.summary.success.mean - a.summary.success.mean || a.summary.runId.localeCompare(b.summary.runId))
    return { entries, problems }
  })

/** The text of an agent run's file in the site: written from what decoded, never copied from the input. */
export const agentFileText = (e: AgentEntry, file: AgentFile): string | undefined => {
  if (file === "config.json") return `${JSON.stringify(e.config, null, 2)}\n`
  if (file === "summary.json") return `${JSON.stringify(e.summary, null, 2)}\n`
  return e.metrics === undefined ? undefined : e.metrics.map((l) => JSON.stringify(l)).join("\n") + (e.metrics.length ? "\n" : "")
}

const pct = (x: number) => (100 * x).toFixed(1)
const interval = (i: { mean: number; lo: number; hi: number }, asPct: boolean) =>
  asPct ? `${pct(i.mean)} [${pct(i.lo)}, ${pct(i.hi)}]` : `${i.mean.toFixed(3)} [${i.lo.toFixed(3)}, ${i.hi.toFixed(3)}]`

/** Why verify leaves a run alone (undefined: it can be re-run). */
export const verifyNote = (c: AgentEvalConfigFile): string | undefined => (c.reproducible ? undefined : `skipped: remote model, not reproducible bit for bit${c.note ? ` (${c.note})` : ""}`)

/** The agents table in Markdown: every string from the files inert (markdown.ts md: no HTML, links or code), labels cut. */
export const agentsMarkdown = (entries: ReadonlyArray<AgentEntry>): string => {
  const L = ["| env | agent | episodes | T | success % [95% Wilson] | return [95% bootstrap] | reproducible |", "|---|---|---|---|---|---|---|"]
  for (const e of entries) {
    const s = e.summary
    L.push(
      `| ${md(cutLabel(s.env))} | ${md(cutLabel(s.agent))} | ${s.episodes} | ${e.config.config.temperature} | ${interval(s.success, true)} | ${interval(s.return, false)} | ${s.reproducible ? "yes" : "no (remote)"} |`
    )
  }
  return L.join("\n")
}

/** An HTML section (sortable like the leaderboard's tables: numbers in data-sort). */
export const agentsHtml = (entries: ReadonlyArray<AgentEntry>, linkTo: (e: AgentEntry, file: AgentFile) => string): string => {
  const h: string[] = ['<h2 id="agents-h">Agents</h2>']
  h.push(
    '<p class="note">Evaluations of served models and checkpoints (<code>ragen-bench eval</code>): success with a 95% Wilson interval, mean return with a 95% percentile-bootstrap interval. Runs of remote models are not reproducible bit for bit and are not verified.</p>'
  )
  h.push('<table id="agents" class="sortable"><thead><tr><th>env</th><th>agent</th><th>episodes</th><th>T</th><th>success %</th><th>return</th><th>reproducible</th><th>files</th></tr></thead><tbody>')
  for (const e of entries) {
    const s = e.summary
    const files = AGENT_FILES.filter((f) => agentFileText(e, f) !== undefined)
      .map((f) => `<a href="${esc(linkTo(e, f))}">${f.split(".")[0]}</a>`)
      .join(" ")
    h.push(
      `<tr data-run="${esc(cutLabel(s.runId))}"><td>${esc(cutLabel(s.env))}</td><td>${esc(cutLabel(s.agent))}</td><td class="num" data-sort="${s.episodes}">${s.episodes}</td><td class="num">${esc(e.config.config.temperature)}</td><td class="num" data-sort="${s.success.mean}">${esc(interval(s.success, true))}</td><td class="num" data-sort="${s.return.mean}">${esc(interval(s.return, false))}</td><td title="${esc(cutLabel(e.config.note ?? ""))}">${s.reproducible ? "yes" : '<span class="bad">no (remote)</span>'}</td><td>${files}</td></tr>`
    )
  }
  h.push("</tbody></table>")
  return h.join("\n")
}
