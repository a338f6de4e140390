/**
 * Every repository path named in a code comment, a doc or .ci/ resolves: a moved file leaves no
 * stale pointer behind. A path is a token that starts at a top-level folder (core/, plugins/, …)
 * and ends in a file extension or a slash; in code only comments are read (strings hold registry
 * ids such as envs/sokoban-v1), and Markdown links are resolved from their file's folder.
 */
import { describe, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, normalize } from "node:path"
import { root } from "../helpers/cli.ts"

/** Paths that name a file of another project, cited where its rule or format comes from. */
const EXTERNAL: Readonly<Record<string, string>> = {
  "envs/room_utils.py": "mpSchrader/gym-sokoban",
  "tools/server/README.md": "ggml-org/llama.cpp",
  "tools/server/server-task.cpp": "ggml-org/llama.cpp",
  "docs/LoaderDriverInterface.md": "KhronosGroup/Vulkan-Loader"
}

const TOP = "core|plugins|envs|algorithms|benchmarks|test|tools|docs|examples|clients|experiments|bin|\\.ci"
const PATH = new RegExp(`(?<![\\w./-])((?:${TOP})/[\\w./@-]*[\\w/])`, "g")
const LINK = /\]\(([^)#\s]+)(?:#[^)]*)?\)/g

/** The comment text of each line of a code file (a // tail, a block comment's lines), else "". */
export const commentLines = (text: string): string[] => {
  let inBlock = false
  return text.split("\n").map((l) => {
    const t = l.trim()
    if (inBlock) {
      if (t.includes("*/")) inBlock = false
      return l
    }
    if (t.startsWith("/*")) {
      inBlock = !t.includes("*/")
      return l
    }
    if (t.startsWith("*") || t.startsWith("#")) return l
    const i = l.indexOf("// ")
    return i >= 0 && !/["'`]/.test(l.slice(i)) ? l.slice(i) : ""
  })
}

/** The repository paths one file names that do not exist, as "file:line: path". */
export const stalePaths = (file: string, text: string, exists: (p: string) => boolean): string[] => {
  const code = /\.(ts|mjs|c|py)$/.test(file)
  const lines = code ? commentLines(text) : text.split("\n")
  const bad: string[] = []
  lines.forEach((line, i) => {
    for (const m of line.matchAll(PATH)) {
      const p = m[1]!.replace(/\.+$/, "")
      if (!/\.\w+$/.test(p) && !p.endsWith("/")) continue
      if (/[<>*{}]/.test(line.slice(m.index!, m.index! + m[0].length + 1))) continue
      if (!exists(p) && !(p in EXTERNAL)) bad.push(`${file}:${i + 1}: ${p}`)
    }
    for (const m of file.endsWith(".md") ? line.matchAll(LINK) : []) {
      const target = m[1]!
      if (/^[a-z]+:/.test(target)) continue
      const p = normalize(join(dirname(file), target))
      if (!exists(p)) bad.push(`${file}:${i + 1}: link ${target}`)
    }
  })
  return bad
}

const tracked = (): string[] =>
  execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: root, encoding: "utf8" })
    .trim()
    .split("\n")
    .filter((f) => (/\.(ts|mjs|md|c|py|toml|yaml|yml)$/.test(f) || f.startsWith(".ci/")) && !f.startsWith("plugins/leaderboard/reference/") && existsSync(join(root, f)))

describe("paths named in comments, docs and .ci/", () => {
  test("every one resolves", () => {
    const exists = (p: string) => existsSync(join(root, p))
    const files = tracked()
    expect(files.length).toBeGreaterThan(300)
    expect(files.flatMap((f) => stalePaths(f, readFileSync(join(root, f), "utf8"), exists))).toEqual([])
  })

  test("the scan sees a stale path in a comment, a doc and a link, and not a registry id in a string (a check that cannot fail is no check)", () => {
    const none = () => false
    expect(stalePaths("a.ts", `// see core/cli/main.ts\nconst id = "envs/frozenlake-v1.x"`, none)).toEqual(["a.ts:1: core/cli/main.ts"])
    expect(stalePaths("docs/a.md", "run `bun tools/repoint-imports.ts` and see [x](../core/gone.ts#l1)", none)).toEqual(["docs/a.md:1: tools/repoint-imports.ts", "docs/a.md:1: link ../core/gone.ts"])
    expect(stalePaths("a.ts", "/**\n * the loader (gym-sokoban envs/room_utils.py)\n */", none)).toEqual([])
  })
})
