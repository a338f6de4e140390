/**
 * samples.jsonl in a run folder (core/schema/samples.ts): appended one whole line per evaluation,
 * cut back on resume like metrics.jsonl, and read back through its Schema with a size bound
 * (the leaderboard reads other people's run folders).
 */
import { Effect } from "effect"
import { join } from "node:path"
import type { FileFormatError } from "../errors.ts"
import { decodeSync } from "../schema/decode.ts"
import { SamplesLine } from "../schema/samples.ts"
import { appendJsonLine } from "./atomic.ts"
import { type LineDecoder, readJsonLines, truncateJsonLines } from "./jsonl.ts"

export const SAMPLES_FILE = "samples.jsonl"

/** samples.jsonl larger than this is refused (1,000 evaluations of 4 episodes write about 12 MB at most). */
export const MAX_SAMPLES_BYTES = 64 << 20

export const appendSamples = (runDir: string, line: SamplesLine): void => appendJsonLine(join(runDir, SAMPLES_FILE), line)

export interface SamplesRead {
  readonly lines: SamplesLine[]
  /** Set when the last line was torn (a killed writer); it is left out. */
  readonly tornLastLine?: boolean
}

const decodeLine: LineDecoder<SamplesLine> = (json) => decodeSync(SamplesLine, json)

/** Read samples.jsonl (absent: no lines); a torn last line is tolerated, anything else malformed fails naming path:line. */
export const readSamples = (path: string, options: { readonly noFollow?: boolean } = {}): Effect.Effect<SamplesRead, FileFormatError> =>
  Effect.map(readJsonLines(path, MAX_SAMPLES_BYTES, decodeLine, options), (r) => (r.tornLastLine === undefined ? { lines: r.lines } : { lines: r.lines, tornLastLine: true }))

/** Keep the lines of evaluations up to step `upTo` (a resumed run writes the later ones again). */
export const truncateSamples = (runDir: string, upTo: number): void => {
  truncateJsonLines(join(runDir, SAMPLES_FILE), MAX_SAMPLES_BYTES, decodeLine, (l) => l.step <= upTo)
}
