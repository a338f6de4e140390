/**
 * Crash-safe file writes: whole-file writes go to a temp file in the same folder and are
 * renamed over the target (rename is atomic on POSIX), so a reader sees the old file or the
 * new one, never a torn one. JSONL appends are single write calls of whole lines.
 */
import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"

let counter = 0

/** Test hook: runs between writing the temp file and the rename. */
export const atomicHooks: { beforeRename?: (tmp: string, target: string) => void } = {}

export const writeFileAtomic = (path: string, data: string | Uint8Array): void => {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.tmp-${process.pid}-${counter++}`
  try {
    writeFileSync(tmp, data)
    atomicHooks.beforeRename?.(tmp, path)
    renameSync(tmp, path)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw e
  }
}

export const writeJsonAtomic = (path: string, value: unknown): void => writeFileAtomic(path, JSON.stringify(value, null, 2) + "\n")

/** Append one JSON value as one whole line. */
export const appendJsonLine = (path: string, value: unknown): void => {
  mkdirSync(dirname(path), { recursive: true })
  appendFileSync(path, JSON.stringify(value) + "\n")
}
