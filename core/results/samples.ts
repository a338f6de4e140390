/**
 * samples.jsonl in a run folder (core/schema/samples.ts): appended one whole line per evaluation,
 * cut back on resume like metrics.jsonl, and read back through its Schema with a size bound
 * (the leaderboard reads other people's run folders).
 */
import { Effect } from "effect"
import { existsSync, rmSync } from "node:fs"
import { join } from "node:path"
import { FileFormatError } from "../errors.ts"
import { readRegularFileSync } from "../files.ts"
import { decodeSync } from "../schema/decode.ts"
import { SamplesLine } from "../schema/samples.ts"
import { appendJsonLine, writeFileAtomic } from "./atomic.ts"

export const SAMPLES_FILE = "samples.jsonl"

/** samples.jsonl larger than this is refused (1,000 evaluations of 4 episodes write about 12 MB at most). */
export const MAX_SAMPLES_BYTES = 64 << 20

export const appendSamples = (runDir: string, line: SamplesLine): void => appendJsonLine(join(runDir, SAMPLES_FILE), line)

export interface SamplesRead {
  readonly lines: SamplesLine[]
  /** Set when the last line was torn (a killed writer); it is left out. */
  readonly tornLastLine?: boolean
}

/** Read samples.jsonl (absent: no lines); a torn last line is tolerated, anything else malformed fails naming path:line. */
export const readSamples = (path: string): Effect.Effect<SamplesRead, FileFormatError> =>
  Effect.suspend((): Effect.Effect<SamplesRead, FileFormatError> => {
    if (!existsSync(path)) return Effect.succeed({ lines: [] })
    let text: string
    try {
      text = new TextDecoder().decode(readRegularFileSync(path, MAX_SAMPLES_BYTES))
    } catch (e) {
      return Effect.fail(new FileFormatError({ path, message: `cannot read ${path}: ${(e as Error).message}` }))
    }
    const parts = text.split("\n")
    const last = parts.pop()! // "" when the file ends with a newline
    const lines: SamplesLine[] = []
    for (let i = 0; i < parts.length; i++) {
      let json: unknown
      try {
        json = JSON.parse(parts[i]!)
      } catch {
        return Effect.fail(new FileFormatError({ path, message: `${path}:${i + 1}: not valid JSON` }))
      }
      const r = decodeSync(SamplesLine, json)
      if (!r.ok) return Effect.fail(new FileFormatError({ path, message: `${path}:${i + 1}: ${r.message}` }))
      lines.push(r.value)
    }
    return Effect.succeed(last === "" ? { lines } : { lines, tornLastLine: true })
  })

/** Keep the lines of evaluations up to step `upTo` (a resumed run writes the later ones again). */
export const truncateSamples = (runDir: string, upTo: number): void => {
  const p = join(runDir, SAMPLES_FILE)
  if (!existsSync(p)) return
  let text: string
  try {
    text = new TextDecoder().decode(readRegularFileSync(p, MAX_SAMPLES_BYTES))
  } catch {
    rmSync(p, { recursive: true, force: true }) // not a file we could have written: start the samples over
    return
  }
  const kept: string[] = []
  for (const l of text.split("\n")) {
    if (l.trim() === "") continue
    let json: unknown
    try {
      json = JSON.parse(l)
    } catch {
      continue // a torn last line from a killed writer
    }
    const r = decodeSync(SamplesLine, json)
    if (r.ok && r.value.step <= upTo) kept.push(l + "\n")
  }
  writeFileAtomic(p, kept.join(""))
}
