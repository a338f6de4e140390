/**
 * The cross-scoring batch as the CPU scorer defines it (plugins/scorers/cpu.ts): each distinct
 * reasoning against each distinct prompt once, an empty reasoning 0 without a forward, the
 * continuation exactly the reasoning's tokens; then the R × N matrices from the rows' scores.
 * Pure (the scorer, the Deno worker's callers and the browser page share it).
 */
import type { CrossScores } from "../../core/host.ts"
import { type ScoreRow, scoreRow } from "./layout.ts"

export interface Encoders {
  readonly ctx: number
  readonly sharePrefix: boolean
  encodePrompt(prompt: string): Int32Array
  encode(text: string): Int32Array
}

/** Distinct values in first-seen order, and each input's index among them. */
const distinct = (xs: ReadonlyArray<string>): { values: string[]; index: Int32Array } => {
  const at = new Map<string, number>()
  const values: string[] = []
  const index = new Int32Array(xs.length)
  xs.forEach((x, i) => {
    let k = at.get(x)
    if (k === undefined) at.set(x, (k = values.push(x) - 1))
    index[i] = k
  })
  return { values, index }
}

export interface CrossBatch {
  readonly rows: ScoreRow[]
  /** The R × N matrices from the rows' sums and per-token means (row order). */
  assemble(sum: ArrayLike<number>, mean: ArrayLike<number>): CrossScores
}

export const crossBatch = (reasonings: ReadonlyArray<string>, prompts: ReadonlyArray<string>, enc: Encoders): CrossBatch => {
  const R = reasonings.length,
    N = prompts.length
  const ur = distinct(reasonings),
    up = distinct(prompts)
  const U = up.values.length
  const pEnc = up.values.map((p) => enc.encodePrompt(p))
  const rows: ScoreRow[] = []
  const at: number[] = [] // distinct-pair index of each row
  ur.values.forEach((text, a) => {
    if (text.length === 0) return
    const cont = enc.encode(text)
    for (let b = 0; b < U; b++) {
      rows.push(scoreRow(pEnc[b]!, cont, enc.ctx, enc.sharePrefix))
      at.push(a * U + b)
    }
  })
  return {
    rows,
    assemble: (s, m) => {
      const uSum = new Float64Array(ur.values.length * U),
        uMean = new Float64Array(ur.values.length * U)
      at.forEach((u, i) => {
        uSum[u] = s[i]!
        uMean[u] = m[i]!
      })
      const tokenMean = new Float64Array(R * N),
        sum = new Float64Array(R * N)
      for (let r = 0; r < R; r++) {
        for (let j = 0; j < N; j++) {
          const u = ur.index[r]! * U + up.index[j]!
          sum[r * N + j] = uSum[u]!
          tokenMean[r * N + j] = uMean[u]!
        }
      }
      return { tokenMean, sum, rows: R, cols: N }
    }
  }
}
