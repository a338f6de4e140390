/** Build and write the site: leaderboard.json, leaderboard.md, index.html under `siteDir`. */
import { Effect } from "effect"
import { join } from "node:path"
import { writeFileAtomic, writeJsonAtomic } from "../../core/results/atomic.ts"
import { buildLeaderboard, collectRuns } from "./build.ts"
import { renderHtml } from "./html.ts"
import { renderMarkdown } from "./markdown.ts"
import type { Leaderboard } from "./schema.ts"

export interface SiteWritten {
  readonly leaderboard: Leaderboard
  readonly files: { readonly json: string; readonly md: string; readonly html: string }
}

export const writeSite = (resultDirs: ReadonlyArray<string>, siteDir: string): Effect.Effect<SiteWritten> =>
  Effect.gen(function*() {
    const { runs, problems, sources } = yield* collectRuns(resultDirs, siteDir)
    const leaderboard = buildLeaderboard({ runs, problems, sources, siteDir })
    const files = { json: join(siteDir, "leaderboard.json"), md: join(siteDir, "leaderboard.md"), html: join(siteDir, "index.html") }
    writeJsonAtomic(files.json, leaderboard)
    writeFileAtomic(files.md, renderMarkdown(leaderboard))
    writeFileAtomic(files.html, renderHtml(leaderboard))
    return { leaderboard, files }
  })
