// The README's "Write your own filter" example is real code: extract it, register it with
// --plugin and check its decisions through `filter apply`, as the README tells a user to.
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { root, runCli } from "../helpers/cli.ts"

const readme = readFileSync(join(root, "README.md"), "utf8")
const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? ""
// its imports are relative to the repository root, so the file goes there
const pluginPath = join(root, `readme-filter.tmp-${process.pid}.ts`)
const dir = mkdtempSync(join(tmpdir(), "ragen-readme-"))
afterAll(() => {
  rmSync(pluginPath, { force: true })
  rmSync(dir, { recursive: true, force: true })
})

describe("README", () => {
  test("the filter example registers with --plugin and keeps the groups it says", () => {
    expect(block).toContain("definePlugin")
    writeFileSync(pluginPath, block)
    const groups = join(dir, "groups.json")
    writeFileSync(
      groups,
      JSON.stringify({
        groups: [
          [1, 0, 0, 1],
          [0, 0, 0, 0],
          [0.2, 0, 0.1, 0]
        ]
      })
    )
    const r = runCli(["filter", "apply", "--plugin", pluginPath, "--filter", "min-range", "--filter-value", "1", groups])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.filter).toBe("spread/min-range")
    expect(out.keptGroups).toEqual([0])
  }, 60_000)
})
