/**
 * Build and write the site under `siteDir`: leaderboard.json, leaderboard.md, cells.csv,
 * index.html, a page per row (rows/), every run's files (runs/), the episode pages and the
 * side-by-side episode pages (episodes/). Every link on every page stays inside the folder, so a
 * copy of site/ alone works.
 */
import { Effect } from "effect"
import { compareIndexHtml, writeComparePages } from "./episodes-compare.ts"
import { writeEpisodePages } from "./episodes.ts"
import { canonicalJson, writeFileAtomic, writeJsonAtomic } from "../../core/host.ts"
import { join } from "node:path"
import { type AgentEntry, type AgentFile, agentFileText, agentsHtml, agentsMarkdown, readAgentRuns } from "./agents.ts"
import { buildLeaderboard, CHART_METRICS, type RunInput } from "./build.ts"
import { collectInputs } from "./collect.ts"
import { type ComparePage, type PageContext, safeHref, safeName } from "./context.ts"
import { renderCellsCsv } from "./csv.ts"
import { renderHtml } from "./html.ts"
import type { FilterLabel } from "./labels.ts"
import { renderMarkdown } from "./markdown.ts"
import { curveBands } from "./plots/bands.ts"
import { forestDomain } from "./plots/forest.ts"
import { writeRunFiles } from "./run-files.ts"
import { siteBefore, tidySite } from "./site-files.ts"
import { renderRowPage, rowPagePaths } from "./rows.ts"
import type { Leaderboard, Problem } from "./schema.ts"

export interface SiteWritten {
  readonly leaderboard: Leaderboard
  readonly files: { readonly json: string; readonly md: string; readonly html: string; readonly csv: string }
}

/** What the caller gathered: runs, problems, sources, and the run ids read from a reference set. */
export interface SiteInput {
  readonly runs: RunInput[]
  readonly problems: Problem[]
  readonly sources: string[]
  readonly reference?: ReadonlyArray<string>
  /** Labels the sweep gave its filters (labels.ts): the page's names for them. */
  readonly labels?: ReadonlyArray<FilterLabel>
}

/** Every run's files, the episode and side-by-side pages: what the pages link to. */
const writeLinked = (lb: Leaderboard, input: SiteInput, siteDir: string): Effect.Effect<PageContext> =>
  Effect.gen(function* () {
    const runDirs = writeRunFiles(input.runs, siteDir)
    let compare: ComparePage[] = []
    const episodes = yield* writeEpisodePages(input.runs, siteDir, (samples) => {
      compare = writeComparePages(lb.entries, samples, siteDir)
      return compareIndexHtml(compare, lb.entries)
    })
    return {
      bands: curveBands(
        input.runs,
        lb.entries,
        CHART_METRICS.map((m) => m.metric)
      ),
      runDirs,
      episodes: episodes.pages,
      reference: new Set(input.reference ?? []),
      rowPages: rowPagePaths(lb),
      compare
    }
  })

/** One agent run per run id: equal copies once, differing copies none (a problem naming each path). */
const oneAgentPerId = (entries: ReadonlyArray<AgentEntry>, problems: Array<{ path: string; message: string }>): AgentEntry[] => {
  const byId = new Map<string, AgentEntry[]>()
  for (const e of entries) byId.set(e.summary.runId, [...(byId.get(e.summary.runId) ?? []), e])
  const content = (e: AgentEntry): string => canonicalJson({ config: e.config, summary: e.summary, metrics: e.metrics ?? null })
  const out: AgentEntry[] = []
  for (const [id, copies] of byId) {
    if (new Set(copies.map(content)).size === 1) out.push(copies[0]!)
    else problems.push({ path: copies[0]!.path, message: `agent run ${id} is held by ${copies.length} folders with different content (${copies.map((c) => c.path).join(", ")}): every copy left out` })
  }
  return out
}

/** `collected`: runs gathered by the caller (compact folders, a joined reference set) instead of collectInputs (run folders and compact records, range-checked). */
export const writeSite = (resultDirs: ReadonlyArray<string>, siteDir: string, collected?: Effect.Effect<SiteInput>): Effect.Effect<SiteWritten> =>
  Effect.gen(function* () {
    const input: SiteInput = yield* collected ?? collectInputs(resultDirs, siteDir)
    // What the folder held before: files of earlier builds that this one does not write are removed at the end.
    const before = siteBefore(siteDir)
    // Agent evaluations (`ragen-bench eval`) live in <results>/agents/ and get a table of their own.
    const found: AgentEntry[] = []
    const agentProblems: Array<{ path: string; message: string }> = []
    for (const dir of resultDirs) {
      const a = yield* readAgentRuns(dir)
      found.push(...a.entries)
      agentProblems.push(...a.problems)
    }
    const agents = oneAgentPerId(found, agentProblems)
    const leaderboard = buildLeaderboard({
      runs: input.runs,
      problems: [...input.problems, ...agentProblems],
      sources: input.sources,
      siteDir,
      reference: input.reference ?? [],
      labels: input.labels ?? []
    })
    const files = { json: join(siteDir, "leaderboard.json"), md: join(siteDir, "leaderboard.md"), html: join(siteDir, "index.html"), csv: join(siteDir, "cells.csv") }
    // Agent evaluations' files are written into the site too (agents/<run id>/), from what decoded, so its links stay inside it.
    const link = (e: AgentEntry, file: AgentFile): string => {
      const rel = `agents/${safeName(e.summary.runId)}/${file}`
      const text = agentFileText(e, file)
      if (text !== undefined) writeFileAtomic(join(siteDir, rel), text)
      return safeHref(rel)
    }
    writeJsonAtomic(files.json, leaderboard)
    writeFileAtomic(files.md, renderMarkdown(leaderboard) + (agents.length > 0 ? `\n## Agents\n\n${agentsMarkdown(agents)}\n` : ""))
    writeFileAtomic(files.csv, renderCellsCsv(leaderboard))
    const ctx = yield* writeLinked(leaderboard, input, siteDir)
    const domain = forestDomain(leaderboard)
    for (const row of leaderboard.rows) writeFileAtomic(join(siteDir, ctx.rowPages.get(row.key)!), renderRowPage(leaderboard, row, ctx, domain))
    writeFileAtomic(files.html, renderHtml(leaderboard, agents.length > 0 ? agentsHtml(agents, link) : "", ctx))
    tidySite(before)
    return { leaderboard, files }
  })
