/**
 * Retires the re-export files docs/decisions.md#issue-24 left at the old paths of moved modules, once, after the
 * branches are merged: every import or re-export of an old path is pointed at the module's new
 * path, then (with --delete) the old files are removed. Until then they keep every importer
 * working, so that the move did not have to touch files other branches were editing.
 *
 * Usage: bun tools/repoint-imports.ts [--dry-run] [--delete] [root]   (root default ".")
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

/** Old path → new path of a module that moved whole (the old file only re-exports the new one). */
export const MOVED: Readonly<Record<string, string>> = {
  "core/schema/run-config.ts": "core/contracts/run-config.ts",
  "core/schema/results.ts": "core/contracts/results.ts",
  "core/schema/defaults.ts": "core/contracts/defaults.ts",
  "core/contracts/command.ts": "core/contracts/plugin.ts",
  "core/cli/command.ts": "core/contracts/plugin.ts"
}

/** Single names re-exported by a module that stays: an import of only that name moves to its home. */
export const NAMED: ReadonlyArray<{ readonly from: string; readonly name: string; readonly to: string }> = [{ from: "core/sweep/grid.ts", name: "GridRun", to: "core/contracts/executor.ts" }]

/** What .gitignore leaves out: anywhere, and at the root only. */
const SKIP_ANYWHERE = new Set(["node_modules", ".git", "runs"])
const SKIP_AT_ROOT = new Set(["results", "site", "tmp", "test-output", "checkpoints", ".cache"])
/** This tool's own test: its texts are the rewrites' examples, not imports. */
const SKIP_FILES = new Set(["test/tools/repoint.test.ts"])

const listTs = (root: string, dir = ""): string[] =>
  readdirSync(join(root, dir)).flatMap((n) => {
    const rel = dir ? `${dir}/${n}` : n
    if (SKIP_ANYWHERE.has(n) || (dir === "" && SKIP_AT_ROOT.has(n))) return []
    if (statSync(join(root, rel)).isDirectory()) return listTs(root, rel)
    return n.endsWith(".ts") && !SKIP_FILES.has(rel) ? [rel] : []
  })

const specifierTo = (fromFile: string, target: string): string => {
  const r = relative(dirname(fromFile), target)
  return r.startsWith(".") ? r : `./${r}`
}

/** One file's import/export specifiers pointed at the new paths; returns the text and how many changed. */
export const repointFile = (rel: string, text: string, root: string): { text: string; changed: number } => {
  let changed = 0
  const out = text.replace(/(\b(?:import|export)\b[^;"'`]*?\bfrom\s*)(["'])(\.{1,2}\/[^"']+)\2/g, (m, head: string, q: string, spec: string) => {
    const target = relative(root, resolve(root, dirname(rel), spec))
    const moved = MOVED[target]
    if (moved) {
      changed++
      return `${head}${q}${specifierTo(rel, moved)}${q}`
    }
    const named = NAMED.find((n) => n.from === target && new RegExp(`^(?:import|export)\\s+(?:type\\s+)?\\{\\s*(?:type\\s+)?${n.name}\\s*\\}\\s*from$`).test(head.trim()))
    if (named) {
      changed++
      return `${head}${q}${specifierTo(rel, named.to)}${q}`
    }
    return m
  })
  return { text: out, changed }
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const dryRun = args.includes("--dry-run")
  const root = resolve(args.find((a) => !a.startsWith("--")) ?? ".")
  let total = 0
  const files: string[] = []
  for (const rel of listTs(root)) {
    if (MOVED[rel]) continue
    const text = readFileSync(join(root, rel), "utf8")
    const r = repointFile(rel, text, root)
    if (r.changed === 0) continue
    total += r.changed
    files.push(rel)
    if (!dryRun) writeFileSync(join(root, rel), r.text)
  }
  console.log(`${dryRun ? "would repoint" : "repointed"} ${total} imports in ${files.length} files`)
  if (args.includes("--delete") && !dryRun) {
    for (const old of Object.keys(MOVED)) if (existsSync(join(root, old))) rmSync(join(root, old))
    console.log(`deleted ${Object.keys(MOVED).join(", ")}; remove the GridRun re-export from core/sweep/grid.ts by hand if nothing imports it there`)
  }
}
