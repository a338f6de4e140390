// Every `ragen-bench …` command line in README.md and docs/*.md parses: the command exists, its
// flags are the command's own and its required arguments are there (docs/decisions.md#issue-28). Lines are taken
// from code blocks and inline code; synopses with placeholders (`<env>`, `[--teacher]`, `…`) are
// left out. Parsed in process with the CLI the host builds, so the whole set takes well under a second.
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { buildCli, parseProblem } from "../../core/cli/host.ts"
import { buildRegistry } from "../../core/registry.ts"
import fixture from "../fixtures/plugins/sweep-policy.ts"
import { root } from "../helpers/cli.ts"

/** Shell words of one command line, up to a comment, pipe, redirection or `&&`. */
export const shellWords = (line: string): string[] => {
  const words: string[] = []
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g
  for (const m of line.matchAll(re)) {
    const w = m[1] ?? m[2] ?? m[3]!
    if (m[3] !== undefined && (/^(#|\||>|>>|&&|;|2>)/.test(w) || w === "\\")) break
    words.push(w)
  }
  return words
}

/** `ragen-bench …` lines of a Markdown text: code-block lines and inline code spans. */
export const commandLines = (md: string): string[] => {
  const out: string[] = []
  let inBlock = false
  for (const raw of md.split("\n")) {
    if (raw.trimStart().startsWith("```")) {
      inBlock = !inBlock
      continue
    }
    if (inBlock) {
      const m = /^\s*(?:\$\s+)?(?:npx\s+)?(ragen-bench\s.*)$/.exec(raw)
      if (m) out.push(m[1]!)
    } else {
      // Inline code: a command line, unless it only names a command in prose ("`ragen-bench sweep` builds it").
      for (const m of raw.matchAll(/`(?:npx\s+)?(ragen-bench\s[^`]*)`/g)) if (m[1]!.trim().split(/\s+/).length > 2) out.push(m[1]!)
    }
  }
  // Synopses, not commands: placeholders, alternatives, ellipses.
  return out.filter((l) => !/[<>[\]…]|\.\.\.|\\\|/.test(l.split(/\s#/)[0]!))
}

const docs = ["README.md", ...readdirSync(join(root, "docs")).map((f) => join("docs", f))].filter((f) => f.endsWith(".md"))
// The sweep fixture's plugin stands in for any `--plugin` a doc names: only parsing is checked here.
const data = Effect.runSync(buildRegistry([...builtinPlugins, fixture]))

describe("documented command lines", () => {
  test("extraction finds the lines and leaves synopses out", () => {
    expect(
      commandLines("```sh\nragen-bench sweep quick --dry-run   # a comment\n$ npx ragen-bench list filters\n```\nrun `ragen-bench env show --env <env>` or `ragen-bench train --env sokoban`")
    ).toEqual(["ragen-bench sweep quick --dry-run   # a comment", "ragen-bench list filters", "ragen-bench train --env sokoban"])
    // a misspelt flag, an unknown command and a missing argument are each caught
    expect(
      parseProblem(
        buildCli(data, async () => {}),
        ["sweep", "quick", "--dry-rn"]
      )
    ).toBe("unknown option --dry-rn (did you mean --dry-run?)")
    expect(
      parseProblem(
        buildCli(data, async () => {}),
        ["swep", "quick"]
      )
    ).toBe('unknown command "swep"')
    expect(
      parseProblem(
        buildCli(data, async () => {}),
        ["sweep", "--dry-run"]
      )
    ).toContain("missing required args")
    expect(
      parseProblem(
        buildCli(data, async () => {}),
        ["sweep", "quick", "--dry-run", "--help"]
      )
    ).toBeUndefined()
    expect(shellWords(`ragen-bench filter apply --option 'like=top-p' groups.json > out.json # x`)).toEqual(["ragen-bench", "filter", "apply", "--option", "like=top-p", "groups.json"])
  })

  test("every ragen-bench command in README.md and docs/*.md parses", () => {
    const bad: string[] = []
    let n = 0
    for (const doc of docs) {
      for (const line of commandLines(readFileSync(join(root, doc), "utf8"))) {
        n++
        const cli = buildCli(data, async () => {})
        const problem = parseProblem(cli, shellWords(line).slice(1))
        if (problem) bad.push(`${doc}: ${line}: ${problem}`)
      }
    }
    expect(n).toBeGreaterThan(50)
    expect(bad).toEqual([])
  })
})
