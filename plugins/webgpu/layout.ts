/**
 * Pure bookkeeping shared by the engine, the Deno worker and the browser page (no GPU, no
 * Node APIs): the policy's flat parameter layout, rows of teacher-forced scoring as the CPU
 * policy builds them, and their packing for a child process.
 */
import { type ModelConfig, numel, parameterShapes } from "../tinylm/index.ts"

export interface TensorSlot {
  readonly name: string
  readonly offset: number
  readonly size: number
}

/** GPT's parameter layout (model.ts constructor): storage order, each tensor 16-byte aligned. */
export const parameterLayout = (config: ModelConfig): { slots: Map<string, TensorSlot>; total: number } => {
  const slots = new Map<string, TensorSlot>()
  let off = 0
  for (const [name, shape] of parameterShapes(config)) {
    const size = numel(shape)
    slots.set(name, { name, offset: off, size })
    off += Math.ceil(size / 4) * 4
  }
  return { slots, total: off }
}

/** Flat parameters from named tensors (a checkpoint's), in parameterLayout order. */
export const flattenParameters = (config: ModelConfig, tensors: ReadonlyMap<string, { data: Float32Array }>): Float32Array => {
  const { slots, total } = parameterLayout(config)
  const out = new Float32Array(total)
  for (const s of slots.values()) {
    const t = tensors.get(s.name)
    if (!t || t.data.length !== s.size) throw new Error(`tensor ${s.name} is missing or has ${t?.data.length ?? 0} values (expected ${s.size})`)
    out.set(t.data, s.offset)
  }
  return out
}

/**
 * One (prompt, continuation) pair as the tinylm policy scores it (policy.ts `row`): the
 * continuation's first min(len, ctx − 1) tokens are scored after as much of the prompt's tail as
 * fits; `split` is the shared prefix (the prompt but its last token) or 0.
 */
export interface ScoreRow {
  readonly tokens: Int32Array
  readonly promptLen: number
  readonly split: number
  readonly scored: number
  /** Continuation length (the per-token mean divides by it). */
  readonly total: number
}

export const scoreRow = (prompt: Int32Array, cont: Int32Array, ctx: number, sharePrefix: boolean): ScoreRow => {
  const scored = Math.min(cont.length, ctx - 1)
  const keep = Math.min(prompt.length, ctx - scored)
  const tokens = new Int32Array(keep + scored)
  tokens.set(prompt.subarray(prompt.length - keep), 0)
  tokens.set(cont.subarray(0, scored), keep)
  return { tokens, promptLen: keep, split: sharePrefix ? keep - 1 : 0, scored, total: cont.length }
}

const HEAD = 5

/** Rows into one Int32Array: per row [len, promptLen, split, scored, total, ...tokens]. */
export const packRows = (rows: ReadonlyArray<ScoreRow>): Int32Array => {
  let n = 1
  for (const r of rows) n += HEAD + r.tokens.length
  const out = new Int32Array(n)
  out[0] = rows.length
  let o = 1
  for (const r of rows) {
    out.set([r.tokens.length, r.promptLen, r.split, r.scored, r.total], o)
    out.set(r.tokens, o + HEAD)
    o += HEAD + r.tokens.length
  }
  return out
}

export const unpackRows = (x: Int32Array): ScoreRow[] => {
  const rows: ScoreRow[] = []
  let o = 1
  for (let i = 0; i < x[0]!; i++) {
    const len = x[o]!
    rows.push({ tokens: x.slice(o + HEAD, o + HEAD + len), promptLen: x[o + 1]!, split: x[o + 2]!, scored: x[o + 3]!, total: x[o + 4]! })
    o += HEAD + len
  }
  return rows
}

/**
 * A chunk of rows in the packed layout: first each distinct prefix once, then every row's own
 * tokens (after its prefix), all back to back with no padding (so a chunk's work is its tokens,
 * not rows × the longest row). Which rows share a prefix is decided as in tinylm/prefix.ts:
 * the same first `split` tokens.
 */
export interface PackedChunk {
  /** Row indices; prefixOf[k] is row k's index into `prefixes`, or −1. */
  readonly rows: number[]
  readonly prefixOf: number[]
  /** Distinct prefixes, as indices of a row whose first `split` tokens they are. */
  readonly prefixes: number[]
  /** Positions used (prefixes + rows' own tokens). */
  positions: number
}

/**
 * Rows into chunks of at most `cap` positions; rows of a prefix stay together (a group too large
 * for one chunk goes on in the next, which holds its prefix again). Any row fits alone (≤ ctx ≤ cap).
 */
export const packChunks = (rows: ReadonlyArray<ScoreRow>, cap: number): PackedChunk[] => {
  const groups = new Map<string, number[]>()
  rows.forEach((r, i) => {
    const k = r.split === 0 ? "" : r.tokens.subarray(0, r.split).join(",")
    const g = groups.get(k)
    if (g) g.push(i)
    else groups.set(k, [i])
  })
  const out: PackedChunk[] = []
  let cur: PackedChunk = { rows: [], prefixOf: [], prefixes: [], positions: 0 }
  for (const g of groups.values()) {
    const P = rows[g[0]!]!.split
    let opened = false
    for (const i of g) {
      const own = rows[i]!.tokens.length - P
      if (cur.rows.length > 0 && cur.positions + own + (P > 0 && !opened ? P : 0) > cap) {
        out.push(cur)
        cur = { rows: [], prefixOf: [], prefixes: [], positions: 0 }
        opened = false
      }
      if (P > 0 && !opened) {
        cur.prefixes.push(i)
        cur.positions += P
        opened = true
      }
      cur.rows.push(i)
      cur.prefixOf.push(P > 0 ? cur.prefixes.length - 1 : -1)
      cur.positions += own
    }
  }
  if (cur.rows.length > 0) out.push(cur)
  return out
}
