/**
 * Points the repository's references inside it (issue 24), once, after the branches are merged:
 *
 * - "DESIGN.md" (a file outside the repository) becomes "docs/design.md", section numbers kept,
 *   everywhere in .ts and .md files: in strings too, so that generated docs (docs/metrics.md from
 *   core/metrics/keys.ts, docs/replication.md) stay equal to what their generators write;
 * - "issue N" / "Issue N" in a .ts comment becomes "docs/decisions.md#issue-N", and in a .md file
 *   a link to it, when docs/decisions.md has that anchor (otherwise it is reported and left);
 * - a path in a .ts comment that names no file ("core/sweep/runner.ts") is replaced by the one
 *   file of that name (same parent folder first, else same file name) when there is exactly one.
 *
 * Usage: bun tools/repoint-comments.ts [--dry-run] [root]   (root: the repository, default ".")
 * Prints what it changed (or would change), by rule, and what it left and why. Running it twice
 * changes nothing the second time.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { basename, dirname, join, relative } from "node:path"

/** What .gitignore leaves out: anywhere, and at the root only. */
const SKIP_ANYWHERE = new Set(["node_modules", ".git", "runs"])
const SKIP_AT_ROOT = new Set(["results", "site", "tmp", "test-output", "checkpoints", ".cache"])
/** The targets themselves, and this tool and its test (their texts are the rewrites' own examples). */
const SKIP_FILES = new Set(["docs/design.md", "docs/decisions.md", "tools/repoint-comments.ts", "test/tools/repoint.test.ts"])

export const listFiles = (root: string, dir = ""): string[] =>
  readdirSync(join(root, dir)).flatMap((n) => {
    const rel = dir ? `${dir}/${n}` : n
    if (SKIP_ANYWHERE.has(n) || (dir === "" && SKIP_AT_ROOT.has(n))) return []
    const st = statSync(join(root, rel))
    if (st.isDirectory()) return listFiles(root, rel)
    return /\.(ts|md)$/.test(n) && !n.endsWith(".generated.ts") && !SKIP_FILES.has(rel) ? [rel] : []
  })

/** Whether position `at` of `line` is inside a comment: a `*`/`//` comment line, or after a `//` that is outside quotes. */
export const inComment = (line: string, at: number): boolean => {
  const t = line.trimStart()
  if (t.startsWith("*") || t.startsWith("/*") || t.startsWith("//")) return true
  let quote: string | null = null
  for (let i = 0; i < at; i++) {
    const c = line[i]!
    if (quote) {
      if (c === "\\") i++
      else if (c === quote) quote = null
    } else if (c === '"' || c === "'" || c === "`") quote = c
    else if (c === "/" && line[i + 1] === "/") return true
    else if (c === "/" && line[i + 1] === "*") return true
  }
  return false
}

export interface Counts {
  design: number
  issues: number
  paths: number
  files: Set<string>
  left: string[]
}

const ISSUE_RE = /\b([Ii])ssue (\d+)\b/g
const PATH_RE = /\b(?:core|envs|algorithms|plugins|benchmarks|test|docs|examples)\/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:ts|md|json)\b/g

/** The anchors docs/decisions.md declares (`<a id="issue-N">`). */
export const anchorsOf = (root: string): Set<number> => {
  const p = join(root, "docs", "decisions.md")
  if (!existsSync(p)) return new Set()
  return new Set([...readFileSync(p, "utf8").matchAll(/<a id="issue-(\d+)"><\/a>/g)].map((m) => Number(m[1])))
}

/**
 * A stale path's replacement: the one file with the same parent folder and name, else the one file
 * with the same name (not for names many folders hold, like README.md or index.ts).
 */
export const relocate = (stale: string, all: ReadonlyArray<string>): string | undefined => {
  const name = basename(stale)
  const parent = basename(dirname(stale))
  const sameName = all.filter((f) => basename(f) === name)
  const sameParent = sameName.filter((f) => basename(dirname(f)) === parent)
  if (sameParent.length === 1) return sameParent[0]
  return sameName.length === 1 && !/^(README\.md|index\.ts|plugin\.ts)$/.test(name) ? sameName[0] : undefined
}

const rewriteTs = (rel: string, text: string, root: string, anchors: Set<number>, tracked: ReadonlyArray<string>, c: Counts): string =>
  text
    .split("\n")
    .map((line, n) => {
      let out = line.replace(/DESIGN\.md/g, () => (c.design++, "docs/design.md"))
      out = out.replace(ISSUE_RE, (m, _i: string, num: string, at: number) => {
        if (!inComment(out, at)) return m
        if (!anchors.has(Number(num))) {
          c.left.push(`${rel}:${n + 1}: "${m}": no anchor issue-${num} in docs/decisions.md`)
          return m
        }
        c.issues++
        return `docs/decisions.md#issue-${num}`
      })
      out = out.replace(PATH_RE, (p: string, at: number) => {
        if (!inComment(out, at) || existsSync(join(root, p))) return p
        const to = relocate(p, tracked)
        if (!to) {
          c.left.push(`${rel}:${n + 1}: ${p} names no file and no single file of that name exists`)
          return p
        }
        c.paths++
        return to
      })
      return out
    })
    .join("\n")

const rewriteMd = (rel: string, text: string, anchors: Set<number>, c: Counts): string => {
  const toDecisions = relative(dirname(rel), "docs/decisions.md") || "decisions.md"
  return text
    .split("\n")
    .map((line, n) => {
      let out = line.replace(/DESIGN\.md/g, () => (c.design++, "docs/design.md"))
      out = out.replace(ISSUE_RE, (m, _i: string, num: string, at: number) => {
        // Already a link's text, or inside a code span: leave it.
        const before = out.slice(0, at)
        if (before.endsWith("[") || (before.split("`").length - 1) % 2 === 1) return m
        if (!anchors.has(Number(num))) {
          c.left.push(`${rel}:${n + 1}: "${m}": no anchor issue-${num} in docs/decisions.md`)
          return m
        }
        c.issues++
        return `[${m}](${toDecisions}#issue-${num})`
      })
      return out
    })
    .join("\n")
}

export const repoint = (root: string, dryRun: boolean): Counts => {
  const c: Counts = { design: 0, issues: 0, paths: 0, files: new Set(), left: [] }
  const anchors = anchorsOf(root)
  const files = listFiles(root)
  for (const rel of files) {
    const text = readFileSync(join(root, rel), "utf8")
    const next = rel.endsWith(".ts") ? rewriteTs(rel, text, root, anchors, files, c) : rewriteMd(rel, text, anchors, c)
    if (next === text) continue
    c.files.add(rel)
    if (!dryRun) writeFileSync(join(root, rel), next)
  }
  return c
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const dryRun = args.includes("--dry-run")
  const root = args.find((a) => !a.startsWith("--")) ?? "."
  if (!existsSync(join(root, "docs", "decisions.md"))) {
    console.error(`error: ${join(root, "docs", "decisions.md")} not found; pass the repository root`)
    process.exit(2)
  }
  const c = repoint(root, dryRun)
  const verb = dryRun ? "would change" : "changed"
  console.log(`${verb} ${c.files.size} files: ${c.design} DESIGN.md → docs/design.md, ${c.issues} issue references → docs/decisions.md, ${c.paths} stale paths`)
  for (const f of [...c.files].sort()) console.log(`  ${f}`)
  if (c.left.length) console.log(`left as they are (${c.left.length}):\n${c.left.map((l) => `  ${l}`).join("\n")}`)
}
