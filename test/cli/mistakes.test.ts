// A user's mistake is named with what they wrote, what is allowed and the nearest known id, in
// one line with no Schema vocabulary (docs/decisions.md#issue-28): misspelt env, filter, preset, flag and command,
// a filter value out of range, a missing file named once.
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { plainIssues } from "../../core/schema/issues.ts"
import { runCli } from "../helpers/cli.ts"

const dir = mkdtempSync(join(tmpdir(), "ragen-mistakes-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const groups = join(dir, "groups.json")
writeFileSync(groups, JSON.stringify({ groups: [[1, 0, 0, 1]] }))

/** The one-line error of a CLI call that must fail as a user mistake (exit 2). */
const mistake = (args: string[]): string => {
  const r = runCli(args)
  expect(r.code).toBe(2)
  const lines = r.stderr.trim().split("\n")
  expect(lines.length).toBe(1)
  expect(lines[0]).toStartWith("error: ")
  // Effect's words never reach the user
  for (const jargon of ["Expected", "| undefined", "excess property", "Missing key", "    at "]) expect(lines[0]).not.toContain(jargon)
  return lines[0]!
}

describe("user mistakes", () => {
  test("a misspelt env, filter, preset, flag or command gets the nearest id", () => {
    expect(mistake(["env", "show", "--env", "sokobn", "--seed", "0"])).toContain('unknown env "sokobn" (did you mean sokoban?)')
    expect(mistake(["filter", "apply", "--filter", "top-pp", groups])).toContain('unknown filter "top-pp" (did you mean top-p?)')
    expect(mistake(["sweep", "quik", "--dry-run"])).toContain('"quik" is neither a file nor a preset; did you mean quick?')
    expect(mistake(["filter", "apply", "--filter", "top-p", "--filter-valu", "0.5", groups])).toContain("unknown option --filter-valu (did you mean --filter-value?)")
    expect(mistake(["swep", "quick"])).toContain('unknown command "swep" (did you mean sweep?)')
  }, 60_000)

  test("a filter value outside its range is refused, naming what was given and what is allowed", () => {
    expect(mistake(["filter", "apply", "--filter", "top-p", "--filter-value", "1.5", groups])).toContain("p: got 1.5; expected a number from 0 to 1")
    expect(mistake(["filter", "apply", "--filter", "top-p", "--filter-value", "abc", groups])).toContain('p: got "abc"; expected a number')
    expect(mistake(["filter", "apply", "--filter", "top-p", "--option", "metric=sd", groups])).toContain('metric: got "sd"; expected one of "std", "var"')
  }, 60_000)

  test("a missing file is named once", () => {
    const missing = join(dir, "nope.json")
    const line = mistake(["filter", "apply", "--filter", "top-p", missing])
    expect(line).toBe(`error: ${missing} does not exist`)
  }, 30_000)

  test("Schema's messages in plain words", () => {
    expect(plainIssues('Expected number | undefined, got "abc"\n  at ["p"]')).toBe('p: got "abc"; expected a number')
    expect(plainIssues('Expected no excess property\n  at ["a"]["z"]\nMissing key\n  at ["d"]')).toBe("a.z: unknown option; d: missing; this field is required")
    expect(plainIssues('Expected a value greater than or equal to 0, got -1\n  at ["g"][2]')).toBe("g[2]: got -1; expected a number ≥ 0")
    expect(plainIssues('Expected an integer, got 1.5\n  at ["k"]')).toBe("k: got 1.5; expected a whole number")
    expect(plainIssues(`Unexpected key with value 3\n  at ["budget"]["stepz"]\nExpected a value with a length of at least 1, got []\n  at ["env"]`)).toBe(
      "budget.stepz: unknown option; env: got []; expected at least 1 value"
    )
  })
})
