/**
 * A reused site folder holds only the files of its last build. Every file the builder writes is
 * written whole to a temp file and renamed into place (core/results/atomic.ts), so it gets a new
 * inode: the files whose inode did not change during a build are the ones it did not write. Of
 * those, only files the builder recognizably wrote are removed — those listed in the folder's
 * manifest (`.ragen-site.json`, written at the end of each build), or, in a site built before the
 * manifest existed (its leaderboard.json is one), the files at the builder's own paths (runs/,
 * agents/, rows/, episodes/). Anything else in the folder (a CNAME, your notes) is left alone.
 * Nothing outside the folder is touched: paths are checked to lie inside it, no link is followed
 * (a path through a link is left), and only regular files are removed.
 */
import { lstatSync, readdirSync, rmdirSync, rmSync, statSync } from "node:fs"
import { join, normalize, sep } from "node:path"
import { Effect, Schema } from "effect"
import { readJsonFile, writeJsonAtomic } from "../../core/host.ts"

export const SITE_MANIFEST = ".ragen-site.json"
const MANIFEST_FORMAT = "ragen-bench/site-files"

const Manifest = Schema.Struct({ format: Schema.Literal(MANIFEST_FORMAT), version: Schema.Literal(1), files: Schema.Array(Schema.String) })
const OldSite = Schema.Struct({ format: Schema.Literal("ragen-bench/leaderboard") })

/** At most this many files are looked at in a site folder (a folder far larger is not a site). */
const MAX_FILES = 1_000_000

/** Regular files under `dir` (relative, "/"-separated) → inode; links are neither followed nor listed. */
export const snapshotFiles = (dir: string): Map<string, number> => {
  const out = new Map<string, number>()
  const walk = (abs: string, rel: string): void => {
    let names: string[]
    try {
      names = readdirSync(abs)
    } catch {
      return
    }
    for (const n of names) {
      if (out.size >= MAX_FILES) return
      const p = join(abs, n)
      const r = rel ? `${rel}/${n}` : n
      const st = lstatSync(p, { throwIfNoEntry: false })
      if (!st || st.isSymbolicLink()) continue
      if (st.isDirectory()) walk(p, r)
      else if (st.isFile()) out.set(r, st.ino)
    }
  }
  // The folder itself is the user's to name (a link to a folder is fine); nothing below it is followed.
  const st = statSync(dir, { throwIfNoEntry: false })
  if (st?.isDirectory()) walk(dir, "")
  return out
}

/** The builder's own paths, for a site built before the manifest. */
const BUILDER_PATH = /^(?:(?:runs|agents)\/[^/]+\/(?:config\.json|metrics\.jsonl|summary\.json)|rows\/[^/]+\.html|episodes\/.+\.html)$/

/** A relative path that stays inside the folder and passes through no link (each folder on the way lstat'ed). */
const safeInside = (dir: string, rel: string): boolean => {
  const n = normalize(rel)
  if (n.startsWith("..") || n.startsWith(sep) || n.includes(`${sep}..${sep}`) || n === ".") return false
  const parts = n.split(sep)
  let at = dir
  for (let i = 0; i < parts.length; i++) {
    at = join(at, parts[i]!)
    const st = lstatSync(at, { throwIfNoEntry: false })
    if (!st || st.isSymbolicLink()) return false
    if (i < parts.length - 1 ? !st.isDirectory() : !st.isFile()) return false
  }
  return true
}

/** Remove now-empty folders from `rel`'s folder up to (not including) the site folder. */
const pruneEmpty = (dir: string, rel: string): void => {
  const parts = rel.split("/").slice(0, -1)
  for (let k = parts.length; k > 0; k--) {
    try {
      rmdirSync(join(dir, ...parts.slice(0, k)))
    } catch {
      return // not empty (or gone): stop here
    }
  }
}

/** What a site folder holds before a build: its files' inodes and the files an earlier build wrote. */
export interface SiteBefore {
  readonly dir: string
  readonly files: ReadonlyMap<string, number>
  /** Files of earlier builds: the manifest's, or (a site built before the manifest) those at the builder's paths. */
  readonly ours: ReadonlyArray<string>
}

/** Look at the site folder before a build writes into it. */
export const siteBefore = (dir: string): SiteBefore => {
  const files = snapshotFiles(dir)
  const prev = Effect.runSync(Effect.result(readJsonFile(Manifest, join(dir, SITE_MANIFEST), { noFollow: true })))
  if (prev._tag === "Success") return { dir, files, ours: prev.success.files }
  const old = files.has("leaderboard.json") ? Effect.runSync(Effect.result(readJsonFile(OldSite, join(dir, "leaderboard.json"), { strict: false, noFollow: true }))) : undefined
  return { dir, files, ours: old?._tag === "Success" ? [...files.keys()].filter((p) => BUILDER_PATH.test(p)) : [] }
}

/**
 * After a build into the folder `before` looked at: remove the stale files earlier builds wrote
 * and this one did not, and write the manifest of this build's files. Returns the removed paths.
 */
export const tidySite = (before: SiteBefore): string[] => {
  const dir = before.dir
  const after = snapshotFiles(dir)
  const written = [...after].filter(([p, ino]) => p !== SITE_MANIFEST && before.files.get(p) !== ino).map(([p]) => p)
  const fresh = new Set(written)
  const manifestPath = join(dir, SITE_MANIFEST)
  const ours = before.ours
  const removed: string[] = []
  for (const p of ours) {
    if (fresh.has(p) || !after.has(p) || !safeInside(dir, p)) continue
    rmSync(join(dir, p))
    removed.push(p)
    pruneEmpty(dir, p)
  }
  writeJsonAtomic(manifestPath, { format: MANIFEST_FORMAT, version: 1, files: written.sort() })
  return removed
}
