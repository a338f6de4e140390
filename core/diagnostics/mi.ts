/**
 * MI proxy family (RAGEN-2 Table 1; docs/design.md §6) from a cross-score matrix L (R rows ×
 * N columns, row-major): L[r, j] = log p(Z_r | X_j), per-token mean and sum. Row r's own
 * prompt is column[r].
 *   matched_r  = L[r, column[r]]
 *   marginal_r = logsumexp_j L[r, j] − log N   (log-prob under the uniform prompt mixture)
 *   MI-Est = mean(matched − marginal) on per-token means; MI-Seq-Est the same on sums;
 *   upper bound log N; H(Z|X) ≈ −mean(matched); H(Z) ≈ −mean(marginal);
 *   MI-ZScore = mean(matched − marginal) / (σ_batch + 1e-3), σ_batch = std over rows of the
 *   marginal; MI-ZScore-EMA uses σ_EMA = α σ_EMA + (1 − α) σ_batch (α = 0.9).
 * Retrieval-Acc and Recall@k count row r correct when a column of its own prompt ranks in the
 * top k of its row. Columns whose signature equals the own column's (identical prompts) count as
 * the own prompt. Ties in value are broken uniformly at random in expectation (a row whose own
 * prompts share the top value with t others scores the exact probability that a random order
 * puts one of them in the top k), so a fully collapsed L (all entries equal) scores exactly the
 * chance level. Chance = mean over rows of c_r/N, c_r the number of columns with row r's own
 * signature (the reference's, collapse_metrics.py `_compute_retrieval_accuracy`); chance@k the
 * exact 1 − C(N−c_r, k)/C(N, k) (the reference writes min(1, k·c/N), the same when c = 1).
 * The reference itself takes torch.argmax, which gives a tie to the lowest column index; that
 * count is reported beside ours as `retrievalAccArgmax` (docs/diagnostics.md).
 * Plain synchronous code on typed arrays: this runs every diagEvery steps.
 */

export interface MiInput {
  /** R×N per-token mean log-probs, row-major. */
  readonly tokenMean: Float64Array
  /** R×N summed log-probs, row-major. */
  readonly sum: Float64Array
  readonly rows: number
  readonly cols: number
  /** column[r]: index of row r's own prompt. */
  readonly column: Int32Array
  /** Optional per-column prompt signature; equal signatures count as the same prompt. */
  readonly signature?: ReadonlyArray<string>
}

/** Mutable EMA state owned by the caller (one per proxy family, e.g. per prefix). */
export interface MiEma {
  sigma?: number
}

export type Regime = "diverse" | "template-collapse" | "compressed" | "low-entropy-collapse"
export const regimeCodes: Readonly<Record<Regime, number>> = {
  diverse: 0,
  "template-collapse": 1,
  compressed: 2,
  "low-entropy-collapse": 3
}

export interface RegimeThresholds {
  /** H(Z|X) at or above this (nats/token) is "high" conditional entropy. */
  readonly hZGivenX: number
  /** MI-Seq-Est / log N at or above this is "high" MI. */
  readonly miFraction: number
  /**
   * Reasoning fact accuracy below this reads as "MI low" whatever MI-Seq-Est says, when the
   * trainer passes the batch's fact accuracy (docs/design.md §10: stated facts became input-agnostic
   * constants, 0.99 → 0.16, while MI-Seq-Est stayed near log N). Default 0.5.
   */
  readonly factAccuracy?: number
}
/**
 * Defaults sized for the tiny policy (docs/design.md §10: after SFT H(Z|X) ≈ 0.01–0.02 nats/token
 * and MI-Seq-Est ≈ log N, the compressed regime; collapse raises H(Z|X) about 30×).
 */
export const defaultRegimeThresholds: RegimeThresholds = { hZGivenX: 0.1, miFraction: 0.5, factAccuracy: 0.5 }

/** Grounded evidence besides L: the reasoning's fact accuracy on the same batch (reasoning/fact_accuracy). */
export interface RegimeEvidence {
  readonly factAccuracy?: number
}

export interface MiProxies {
  readonly rows: number
  readonly cols: number
  readonly retrievalAcc: number
  /** The reference's count: argmax with ties to the lowest column index (torch.argmax). */
  readonly retrievalAccArgmax: number
  readonly recallAt2: number
  readonly recallAt4: number
  readonly recallAt8: number
  readonly chance: number
  readonly chanceAt2: number
  readonly chanceAt4: number
  readonly chanceAt8: number
  readonly miEst: number
  readonly miSeqEst: number
  readonly miUpperBound: number
  readonly miZScore: number
  readonly miZScoreEma: number
  /** σ_batch of the per-token marginal (the z-score's denominator before +1e-3). */
  readonly marginalStd: number
  readonly hZGivenX: number
  readonly hZ: number
  readonly regime: Regime
}

const Z_EPS = 1e-3

/** log Σ_j exp(x[off + j]) − log n, stable for entries of −1e4 and below. */
const logMeanExp = (x: Float64Array, off: number, n: number): number => {
  let m = -Infinity
  for (let j = 0; j < n; j++) if (x[off + j]! > m) m = x[off + j]!
  if (m === -Infinity) return -Infinity
  let s = 0
  for (let j = 0; j < n; j++) s += Math.exp(x[off + j]! - m)
  return m + Math.log(s) - Math.log(n)
}

/** Columns of row r's own prompt: own itself and every column with the same signature. */
const isOwn = (j: number, own: number, sig: ReadonlyArray<string> | undefined): boolean => j === own || (sig !== undefined && sig[j] === sig[own])

/**
 * P(a column of the own prompt is in the row's top k) with ties in value broken uniformly: with
 * v the best own value, a own columns at v, g other columns above v and t at v, the top k
 * takes m = k − g of the a + t tied ones, so P = 1 − C(t, m)/C(a + t, m) (0 when m ≤ 0).
 */
const recallProb = (row: Float64Array, off: number, n: number, own: number, sig: ReadonlyArray<string> | undefined, k: number): number => {
  let v = -Infinity
  for (let j = 0; j < n; j++) if (isOwn(j, own, sig) && row[off + j]! > v) v = row[off + j]!
  let a = 0
  let g = 0
  let t = 0
  for (let j = 0; j < n; j++) {
    const x = row[off + j]!
    if (isOwn(j, own, sig)) {
      if (x === v) a++
    } else if (x > v) g++
    else if (x === v) t++
  }
  const m = k - g
  if (m <= 0) return 0
  if (m > t) return 1
  let none = 1 // C(t, m)/C(a + t, m) = Π_{i<m} (t − i)/(a + t − i)
  for (let i = 0; i < m; i++) none *= (t - i) / (a + t - i)
  return 1 - none
}

/** The reference's retrieval: torch.argmax of the row (first maximum) has the own signature. */
const argmaxHit = (row: Float64Array, off: number, n: number, own: number, sig: ReadonlyArray<string> | undefined): number => {
  let best = 0
  for (let j = 1; j < n; j++) if (row[off + j]! > row[off + best]!) best = j
  return isOwn(best, own, sig) ? 1 : 0
}

/** Chance of Recall@k for a row whose prompt has c of the N columns: 1 − C(N − c, k)/C(N, k). */
const chanceAt = (N: number, c: number, k: number): number => {
  if (k >= N - c + 1) return 1
  let none = 1
  for (let i = 0; i < k; i++) none *= (N - c - i) / (N - i)
  return 1 - none
}

export const checkMiInput = (input: MiInput): void => {
  const { rows: R, cols: N } = input
  if (!(R >= 1 && N >= 1)) throw new RangeError(`miProxies: need at least one row and one column (got ${R}×${N})`)
  if (input.tokenMean.length !== R * N || input.sum.length !== R * N) {
    throw new RangeError(`miProxies: tokenMean and sum must hold rows·cols = ${R * N} entries (got ${input.tokenMean.length}, ${input.sum.length})`)
  }
  if (input.column.length !== R) throw new RangeError(`miProxies: column must have one entry per row (${R}), got ${input.column.length}`)
  for (let r = 0; r < R; r++) {
    const c = input.column[r]!
    if (!(c >= 0 && c < N)) throw new RangeError(`miProxies: column[${r}] = ${c} is outside 0..${N - 1}`)
  }
  if (input.signature && input.signature.length !== N) {
    throw new RangeError(`miProxies: signature must have one entry per column (${N}), got ${input.signature.length}`)
  }
}

/**
 * The Fig. 1 quadrant. MI is "high" when MI-Seq-Est / log N reaches miFraction, unless the
 * batch's fact accuracy is given and below thresholds.factAccuracy: the reasoning then no longer
 * carries its input's facts (docs/design.md §10's collapse), which sequence-level MI, saturating near
 * log N, does not show.
 */
export const classifyRegime = (hZGivenX: number, miSeqEst: number, cols: number, t: RegimeThresholds = defaultRegimeThresholds, evidence: RegimeEvidence = {}): Regime => {
  const highH = hZGivenX >= t.hZGivenX
  const factFloor = t.factAccuracy ?? defaultRegimeThresholds.factAccuracy!
  const grounded = evidence.factAccuracy === undefined || !Number.isFinite(evidence.factAccuracy) || evidence.factAccuracy >= factFloor
  const highMi = cols > 1 ? miSeqEst / Math.log(cols) >= t.miFraction && grounded : false
  return highH ? (highMi ? "diverse" : "template-collapse") : highMi ? "compressed" : "low-entropy-collapse"
}

export const miProxies = (input: MiInput, ema?: MiEma, decay = 0.9, thresholds: RegimeThresholds = defaultRegimeThresholds, evidence: RegimeEvidence = {}): MiProxies => {
  checkMiInput(input)
  const { rows: R, cols: N, tokenMean: L, sum: S, column, signature } = input
  let acc = 0,
    r2 = 0,
    r4 = 0,
    r8 = 0,
    accArgmax = 0
  let c1 = 0,
    c2 = 0,
    c4 = 0,
    c8 = 0
  let sumMatched = 0,
    sumMarginal = 0,
    sumDiff = 0,
    sumSeqDiff = 0
  const marginal = new Float64Array(R)
  for (let r = 0; r < R; r++) {
    const off = r * N
    const own = column[r]!
    const matched = L[off + own]!
    const marg = logMeanExp(L, off, N)
    marginal[r] = marg
    sumMatched += matched
    sumMarginal += marg
    sumDiff += matched - marg
    sumSeqDiff += S[off + own]! - logMeanExp(S, off, N)
    acc += recallProb(L, off, N, own, signature, 1)
    r2 += recallProb(L, off, N, own, signature, 2)
    r4 += recallProb(L, off, N, own, signature, 4)
    r8 += recallProb(L, off, N, own, signature, 8)
    accArgmax += argmaxHit(L, off, N, own, signature)
    let c = 0
    for (let j = 0; j < N; j++) if (isOwn(j, own, signature)) c++
    c1 += c / N
    c2 += chanceAt(N, c, 2)
    c4 += chanceAt(N, c, 4)
    c8 += chanceAt(N, c, 8)
  }
  const meanMarg = sumMarginal / R
  let v = 0
  for (let r = 0; r < R; r++) v += (marginal[r]! - meanMarg) ** 2
  const sigma = Math.sqrt(v / R)
  if (ema) ema.sigma = ema.sigma === undefined ? sigma : decay * ema.sigma + (1 - decay) * sigma
  const miEst = sumDiff / R
  const miSeqEst = sumSeqDiff / R
  const hZGivenX = -sumMatched / R
  return {
    rows: R,
    cols: N,
    retrievalAcc: acc / R,
    retrievalAccArgmax: accArgmax / R,
    recallAt2: r2 / R,
    recallAt4: r4 / R,
    recallAt8: r8 / R,
    chance: c1 / R,
    chanceAt2: c2 / R,
    chanceAt4: c4 / R,
    chanceAt8: c8 / R,
    miEst,
    miSeqEst,
    miUpperBound: Math.log(N),
    miZScore: miEst / (sigma + Z_EPS),
    miZScoreEma: miEst / ((ema?.sigma ?? sigma) + Z_EPS),
    marginalStd: sigma,
    hZGivenX,
    hZ: -meanMarg,
    regime: classifyRegime(hZGivenX, miSeqEst, N, thresholds, evidence)
  }
}

/** Prefixes the trainer logs the proxies under (docs/metrics.md). */
export type MiPrefix = "mi/first_turn" | "mi/trajectory" | "mi/probe_first_turn" | "mi/probe_trajectory" | `mi/${string}`

/** The proxies as metric names for metrics.jsonl; the regime as its numeric code. */
export const miMetrics = (prefix: MiPrefix, p: MiProxies): Record<string, number> => ({
  [`${prefix}/retrieval_acc`]: p.retrievalAcc,
  [`${prefix}/retrieval_above_chance`]: p.retrievalAcc - p.chance,
  [`${prefix}/retrieval_acc_argmax`]: p.retrievalAccArgmax,
  [`${prefix}/recall_at_2`]: p.recallAt2,
  [`${prefix}/recall_at_4`]: p.recallAt4,
  [`${prefix}/recall_at_8`]: p.recallAt8,
  [`${prefix}/chance`]: p.chance,
  [`${prefix}/mi_est`]: p.miEst,
  [`${prefix}/mi_seq_est`]: p.miSeqEst,
  [`${prefix}/mi_upper_bound`]: p.miUpperBound,
  [`${prefix}/mi_zscore`]: p.miZScore,
  [`${prefix}/mi_zscore_ema`]: p.miZScoreEma,
  [`${prefix}/h_z_given_x`]: p.hZGivenX,
  [`${prefix}/h_z`]: p.hZ,
  [`${prefix}/regime`]: regimeCodes[p.regime],
  [`${prefix}/rows`]: p.rows,
  [`${prefix}/cols`]: p.cols
})
