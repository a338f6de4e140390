/**
 * The one-off rewrites of issue 24 (tools/): references to DESIGN.md and to tracker issues become
 * references inside the repository, stale paths in comments find their file, and imports of the
 * old module paths move to the new ones. Run here on a planted tree in a temporary folder.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { inComment, relocate, repoint } from "../../tools/repoint-comments.ts"
import { repointFile } from "../../tools/repoint-imports.ts"

const tmp = mkdtempSync(join(tmpdir(), "repoint-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const plant = (root: string, files: Record<string, string>): void => {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true })
    writeFileSync(join(root, rel), text)
  }
}

describe("repoint-comments", () => {
  test("a match is in a comment after `//` or on a `*` line, not inside a string", () => {
    expect(inComment(" * see issue 14", 7)).toBe(true)
    expect(inComment('const a = "x" // issue 14', 17)).toBe(true)
    expect(inComment('const a = "// issue 14"', 14)).toBe(false)
  })

  test("a stale path finds the one file of its folder and name; a generic or ambiguous name is left", () => {
    const all = ["plugins/sweep/runner.ts", "plugins/leaderboard/runner.ts", "test/sweep/fake-train.ts", "README.md"]
    expect(relocate("core/sweep/runner.ts", all)).toBe("plugins/sweep/runner.ts")
    expect(relocate("core/other/runner.ts", all)).toBeUndefined()
    expect(relocate("core/sweep/fake-train.ts", all)).toBe("test/sweep/fake-train.ts")
    expect(relocate("tools/server/README.md", all)).toBeUndefined()
  })

  test("rewrites DESIGN.md everywhere, issue numbers with an anchor in comments and docs, and is idempotent", () => {
    const root = join(tmp, "comments")
    plant(root, {
      "docs/decisions.md": '<a id="issue-14"></a>\n## Issue 14\n',
      "docs/design.md": "# Design\n",
      "core/a.ts": '/** The rule (DESIGN.md §5, issue 14; issue 99). Started by core/sweep/runner.ts. */\nexport const s = "DESIGN.md §4, issue 14"\n',
      "plugins/sweep/runner.ts": "export {}\n",
      "benchmarks/RESULTS.md": "## Trainer (issue 14) — `issue 14` stays\n"
    })
    const c = repoint(root, false)
    expect(readFileSync(join(root, "core/a.ts"), "utf8")).toBe(
      '/** The rule (docs/design.md §5, docs/decisions.md#issue-14; issue 99). Started by plugins/sweep/runner.ts. */\nexport const s = "docs/design.md §4, issue 14"\n'
    )
    expect(readFileSync(join(root, "benchmarks/RESULTS.md"), "utf8")).toBe("## Trainer ([issue 14](../docs/decisions.md#issue-14)) — `issue 14` stays\n")
    expect([c.design, c.issues, c.paths]).toEqual([2, 2, 1])
    expect(c.left).toEqual(['core/a.ts:1: "issue 99": no anchor issue-99 in docs/decisions.md'])
    const again = repoint(root, false)
    expect(again.files.size).toBe(0)
  })
})

describe("repoint-imports", () => {
  test("imports of a moved module and a lone re-exported name move; others stay", () => {
    const text = [
      'import { RunConfig } from "../schema/run-config.ts"',
      'import type { GridRun } from "../../core/sweep/grid.ts"',
      'import { expandGrid, type GridRun } from "../../core/sweep/grid.ts"',
      'export { defineCommand } from "../contracts/command.ts"',
      'import { decodeSync } from "../schema/decode.ts"'
    ].join("\n")
    const core = repointFile(
      "core/results/store.ts",
      text
        .split("\n")
        .filter((l) => !l.includes("core/sweep"))
        .join("\n"),
      "/r"
    )
    expect(core.text).toBe(
      ['import { RunConfig } from "../contracts/run-config.ts"', 'export { defineCommand } from "../contracts/plugin.ts"', 'import { decodeSync } from "../schema/decode.ts"'].join("\n")
    )
    expect(core.changed).toBe(2)
    const plugin = repointFile("plugins/bullmq/coordinator.ts", text.split("\n").slice(1, 3).join("\n"), "/r")
    expect(plugin.text).toBe('import type { GridRun } from "../../core/contracts/executor.ts"\nimport { expandGrid, type GridRun } from "../../core/sweep/grid.ts"')
  })
})
