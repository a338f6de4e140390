/**
 * `ragen-bench mi <input.json>`: the MI proxies (docs/design.md §6) of a cross-score matrix given
 * as JSON, through the same miProxies the trainer uses. Input: {"tokenMean": [[...]], "sum":
 * [[...]], "column": [...], "signature"?: [...]} with R rows × N columns.
 */
import { Console, Effect, Schema } from "effect"
import { defaultRegimeThresholds, miMetrics, type MiPrefix, miProxies } from "../../diagnostics/mi.ts"
import { FileFormatError } from "../../errors.ts"
import { readJsonFile } from "../../schema/decode.ts"
import { numberFlagOr } from "../flags.ts"
import { defineCommand } from "../../contracts/plugin.ts"

const Matrix = Schema.Array(Schema.Array(Schema.Finite))

export const MiFile = Schema.Struct({
  tokenMean: Matrix,
  sum: Matrix,
  column: Schema.Array(Schema.Int),
  signature: Schema.optional(Schema.Array(Schema.String))
})
export type MiFile = typeof MiFile.Type

/** Shape checks with messages naming the field; returns the flat input or the problem. */
export const miInputFromFile = (f: MiFile): { ok: true; value: Parameters<typeof miProxies>[0] } | { ok: false; message: string } => {
  const R = f.tokenMean.length
  if (R === 0) return { ok: false, message: "tokenMean has no rows; give at least one row of log-probs" }
  const N = f.tokenMean[0]!.length
  if (N === 0) return { ok: false, message: "tokenMean[0] has no columns; each row needs one log-prob per prompt" }
  if (f.sum.length !== R) return { ok: false, message: `sum has ${f.sum.length} rows but tokenMean has ${R}; both are R rows × N columns` }
  for (const [name, m] of [
    ["tokenMean", f.tokenMean],
    ["sum", f.sum]
  ] as const) {
    for (let r = 0; r < R; r++) {
      if (m[r]!.length !== N) return { ok: false, message: `${name}[${r}] has ${m[r]!.length} entries but row 0 of tokenMean has ${N}; every row needs N = ${N} columns` }
    }
  }
  if (f.column.length !== R) return { ok: false, message: `column has ${f.column.length} entries but there are ${R} rows; give each row's own column` }
  for (let r = 0; r < R; r++) {
    const c = f.column[r]!
    if (c < 0 || c >= N) return { ok: false, message: `column[${r}] = ${c} is outside 0..${N - 1}` }
  }
  if (f.signature && f.signature.length !== N) return { ok: false, message: `signature has ${f.signature.length} entries but there are ${N} columns; give one per column or drop it` }
  const flat = (m: ReadonlyArray<ReadonlyArray<number>>) => {
    const out = new Float64Array(R * N)
    for (let r = 0; r < R; r++) out.set(m[r]!, r * N)
    return out
  }
  return {
    ok: true,
    value: { tokenMean: flat(f.tokenMean), sum: flat(f.sum), rows: R, cols: N, column: Int32Array.from(f.column), ...(f.signature ? { signature: f.signature } : {}) }
  }
}

export default defineCommand({
  pattern: "mi <file>",
  description: "Compute the MI proxies (retrieval, MI-Est, z-scores, entropies, regime) of a cross-score matrix",
  options: [
    { flags: "--json", description: "JSON output (the default: the command prints JSON; the flag is accepted like on every command that prints results)" },
    { flags: "--prefix <name>", description: "Also print the proxies as metric names under this prefix (e.g. mi/first_turn)" },
    { flags: "--h-threshold <x>", description: `H(Z|X) threshold of the regimes, nats/token (default ${defaultRegimeThresholds.hZGivenX})` },
    { flags: "--mi-threshold <x>", description: `MI-Seq-Est/log N threshold of the regimes (default ${defaultRegimeThresholds.miFraction})` }
  ],
  examples: ["ragen-bench mi scores.json", "ragen-bench mi scores.json --prefix mi/first_turn"],
  run: ([file], opts) =>
    Effect.gen(function* () {
      const f = yield* readJsonFile(MiFile, file)
      const input = miInputFromFile(f)
      if (!input.ok) return yield* new FileFormatError({ path: file, message: `${file}: ${input.message}` })
      const thresholds = {
        hZGivenX: yield* numberFlagOr(opts.hThreshold, "--h-threshold", defaultRegimeThresholds.hZGivenX),
        miFraction: yield* numberFlagOr(opts.miThreshold, "--mi-threshold", defaultRegimeThresholds.miFraction)
      }
      const proxies = miProxies(input.value, undefined, 0.9, thresholds)
      const out = opts.prefix ? { ...proxies, metrics: miMetrics(String(opts.prefix) as MiPrefix, proxies) } : proxies
      yield* Console.log(JSON.stringify(out, null, 2))
    })
})
