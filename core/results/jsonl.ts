/**
 * The JSON-lines files of a run folder (metrics.jsonl, samples.jsonl): written one whole line at a
 * time (atomic.ts appendJsonLine), read back bounded (regular files only, a size cap: the
 * leaderboard reads other people's folders), a torn last line from a killed writer tolerated and
 * reported, any other bad line an error naming path:line; cut back on resume.
 */
import { Effect } from "effect"
import { existsSync, lstatSync, rmSync } from "node:fs"
import { FileFormatError } from "../errors.ts"
import { readRegularFileSync } from "../files.ts"
import { writeFileAtomic } from "./atomic.ts"

export type LineDecoder<T> = (json: unknown) => { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string }

export interface JsonLinesRead<T> {
  readonly lines: T[]
  /** The torn last line (a killed writer), left out; absent when the file ends with a newline. */
  readonly tornLastLine?: string
}

const isLink = (path: string): boolean => {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

/**
 * `noFollow`: a link in place of the file is refused, not followed (a folder someone sent: its
 * links could name any file of the reader's).
 */
export const readJsonLines = <T>(path: string, maxBytes: number, decode: LineDecoder<T>, options: { readonly noFollow?: boolean } = {}): Effect.Effect<JsonLinesRead<T>, FileFormatError> =>
  Effect.suspend((): Effect.Effect<JsonLinesRead<T>, FileFormatError> => {
    if (!existsSync(path)) {
      // Absent is an empty file; a link to nothing is damage, not a run that logged nothing.
      if (!isLink(path)) return Effect.succeed({ lines: [] })
      return Effect.fail(new FileFormatError({ path, message: `${path} is a dangling link` }))
    }
    let text: string
    try {
      // A directory, a FIFO or an endless device in place of the file is reported, not read.
      text = new TextDecoder().decode(readRegularFileSync(path, maxBytes, options))
    } catch (e) {
      return Effect.fail(new FileFormatError({ path, message: (e as Error).message }))
    }
    const parts = text.split("\n")
    const last = parts.pop()! // "" when the file ends with a newline
    const lines: T[] = []
    for (let i = 0; i < parts.length; i++) {
      let json: unknown
      try {
        json = JSON.parse(parts[i]!)
      } catch {
        return Effect.fail(new FileFormatError({ path, message: `${path}:${i + 1}: not valid JSON` }))
      }
      const r = decode(json)
      if (!r.ok) return Effect.fail(new FileFormatError({ path, message: `${path}:${i + 1}: ${r.message}` }))
      lines.push(r.value)
    }
    return Effect.succeed(last === "" ? { lines } : { lines, tornLastLine: last })
  })

/**
 * Keep the lines that decode and that `keep` accepts (a resumed run writes the later ones again;
 * torn or foreign lines are dropped), rewriting the file atomically; the kept values. A path that
 * cannot be read as a bounded regular file is removed: it is not a file the run wrote.
 */
export const truncateJsonLines = <T>(path: string, maxBytes: number, decode: LineDecoder<T>, keep: (value: T) => boolean): T[] => {
  if (!existsSync(path)) return []
  let text: string
  try {
    text = new TextDecoder().decode(readRegularFileSync(path, maxBytes))
  } catch {
    rmSync(path, { recursive: true, force: true })
    return []
  }
  const kept: Array<{ line: string; value: T }> = []
  for (const l of text.split("\n")) {
    if (l.trim() === "") continue
    let json: unknown
    try {
      json = JSON.parse(l)
    } catch {
      continue // a torn last line from a killed writer
    }
    const r = decode(json)
    if (r.ok && keep(r.value)) kept.push({ line: l, value: r.value })
  }
  writeFileAtomic(path, kept.map((k) => `${k.line}\n`).join(""))
  return kept.map((k) => k.value)
}
