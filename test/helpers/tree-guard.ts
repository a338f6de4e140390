/**
 * Tests write only to temporary folders (docs/decisions.md#issue-28). Preloaded by `bun test` (bunfig.toml): it
 * lists the repository's files (node_modules and .git aside) when the run starts and again when
 * it ends; a file that appeared, or an untracked one that changed, fails the run and is named.
 */
import { afterAll } from "bun:test"
import { execFileSync, spawnSync } from "node:child_process"
import { lstatSync, readdirSync } from "node:fs"
import { join, relative } from "node:path"

const root = join(import.meta.dir, "..", "..")
const SKIP = new Set(["node_modules", ".git"])

const snapshot = (): Map<string, number> => {
  const out = new Map<string, number>()
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (SKIP.has(e.name)) continue
      const p = join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else out.set(relative(root, p), lstatSync(p).mtimeMs)
    }
  }
  walk(root)
  return out
}

const tracked = (): Set<string> => {
  try {
    return new Set(execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).split("\n"))
  } catch {
    return new Set()
  }
}

/** Which of `paths` git ignores (a test's temporary file in the tree, e.g. `*.tmp-*`). */
const ignored = (paths: ReadonlyArray<string>): string[] => {
  if (paths.length === 0) return []
  const r = spawnSync("git", ["check-ignore", "--stdin"], { cwd: root, input: paths.join("\n"), encoding: "utf8" })
  return (r.stdout ?? "").split("\n").filter(Boolean)
}

const before = snapshot()
const inGit = tracked()

// A preload's afterAll runs once, after every test file of the run.
afterAll(() => {
  const after = snapshot()
  const changed = [...after].filter(([p, t]) => (before.has(p) ? !inGit.has(p) && before.get(p) !== t : true)).map(([p]) => p)
  // A new source or doc file git does not ignore is someone editing the tree while tests run, not a test's output.
  const sources = changed.filter((p) => /\.(ts|md)$/.test(p))
  const ignoredSources = new Set(ignored(sources))
  const written = changed.filter((p) => !/\.(ts|md)$/.test(p) || ignoredSources.has(p))
  if (written.length === 0) return
  throw new Error(`tests wrote into the repository (tests must write only to temporary folders): ${written.slice(0, 20).join(", ")}${written.length > 20 ? ` and ${written.length - 20} more` : ""}`)
})
