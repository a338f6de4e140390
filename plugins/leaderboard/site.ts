/** Build and write the site: leaderboard.json, leaderboard.md, index.html under `siteDir`. */
import { Effect } from "effect"
import { writeEpisodePages } from "./episodes.ts"
import { writeFileAtomic, writeJsonAtomic } from "../../core/results/atomic.ts"
import { join, relative, resolve } from "node:path"
import { type AgentEntry, agentsHtml, agentsMarkdown, readAgentRuns } from "./agents.ts"
import { buildLeaderboard, type RunInput } from "./build.ts"
import { collectInputs } from "./collect.ts"
import { renderHtml } from "./html.ts"
import { renderMarkdown } from "./markdown.ts"
import type { Leaderboard, Problem } from "./schema.ts"

export interface SiteWritten {
  readonly leaderboard: Leaderboard
  readonly files: { readonly json: string; readonly md: string; readonly html: string }
}

/** `collected`: runs gathered by the caller (a joined reference set) instead of collectInputs (run folders and compact records, range-checked). */
export const writeSite = (resultDirs: ReadonlyArray<string>, siteDir: string, collected?: Effect.Effect<{ runs: RunInput[]; problems: Problem[]; sources: string[] }>): Effect.Effect<SiteWritten> =>
  Effect.gen(function* () {
    const { runs, problems, sources } = yield* collected ?? collectInputs(resultDirs, siteDir)
    // Agent evaluations (`ragen-bench eval`) live in <results>/agents/ and get a table of their own.
    const agents: AgentEntry[] = []
    const agentProblems: Array<{ path: string; message: string }> = []
    for (const dir of resultDirs) {
      const a = yield* readAgentRuns(dir)
      agents.push(...a.entries)
      agentProblems.push(...a.problems)
    }
    const leaderboard = buildLeaderboard({ runs, problems: [...problems, ...agentProblems], sources, siteDir })
    const files = { json: join(siteDir, "leaderboard.json"), md: join(siteDir, "leaderboard.md"), html: join(siteDir, "index.html") }
    const link = (e: AgentEntry, file: string) => relative(resolve(siteDir), resolve(e.path, file)).split("\\").join("/")
    writeJsonAtomic(files.json, leaderboard)
    writeFileAtomic(files.md, renderMarkdown(leaderboard) + (agents.length > 0 ? `\n## Agents\n\n${agentsMarkdown(agents)}\n` : ""))
    writeFileAtomic(files.html, renderHtml(leaderboard, agents.length > 0 ? agentsHtml(agents, link) : ""))
    // Per run, the validation episodes its evaluations kept (samples.jsonl): episodes/index.html.
    yield* writeEpisodePages(runs, siteDir)
    return { leaderboard, files }
  })
