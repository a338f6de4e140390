/**
 * Learning curves with a band over seeds on FIXED axes: x from 0 to the row's last step, y 0–100%
 * for a rate (success, accuracies, the kept ratio), else from 0 (or the lowest value when it is
 * negative) to a nice top. One colour per filter (palette.ts), the noise floor dashed; each curve
 * links to its cell's runs and carries a <title> per point (hover text without script).
 */
import { esc } from "../escape.ts"
import { niceTicks } from "../svg.ts"
import type { BandPoint } from "./bands.ts"
import { colourOf, dashOf, type FilterStyle, filterStyles } from "./palette.ts"

/** Metrics that are rates in [0, 1]: drawn on 0–100%. */
export const RATE_METRICS: ReadonlySet<string> = new Set(["val/success@0.5", "mi/first_turn/retrieval_acc", "reasoning/fact_accuracy", "filter/kept_ratio"])

export interface CurveSeries {
  readonly name: string
  readonly points: ReadonlyArray<BandPoint>
  readonly href?: string
  /** Its colour and dash pattern among the page's filters (palette.ts filterStyles); else its own alone. */
  readonly style?: FilterStyle
}

export interface CurveOptions {
  readonly title: string
  readonly metric: string
  readonly series: ReadonlyArray<CurveSeries>
  readonly xMax: number
}

const W = 380
const H = 250
const M = { l: 44, r: 10, t: 24, b: 34 }
const f = (v: number): string => v.toFixed(1)
const fmtTick = (t: number): string => String(Number(t.toPrecision(4)))

const yDomain = (o: CurveOptions): readonly [number, number] => {
  if (RATE_METRICS.has(o.metric)) return [0, 1]
  let lo = 0
  let hi = 0
  for (const s of o.series) for (const p of s.points) (lo = Math.min(lo, p[2])), (hi = Math.max(hi, p[3]))
  const ticks = niceTicks(lo, hi > lo ? hi : lo + 1)
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 1
  return [Math.floor(lo / step) * step, Math.ceil((hi > lo ? hi : lo + 1) / step) * step]
}

const seriesSvg = (s: CurveSeries, X: (x: number) => number, Y: (y: number) => number, rate: boolean): string => {
  const c = s.style?.colour ?? colourOf(s.name)
  const dash = s.style?.dash ?? dashOf(s.name)
  const p: string[] = [`<title>${esc(s.name)}: mean over seeds, band from the lowest to the highest seed</title>`]
  if (s.points.some((q) => q[4] > 1)) {
    const upper = s.points.map((q) => `${f(X(q[0]))},${f(Y(q[3]))}`)
    const lower = [...s.points].reverse().map((q) => `${f(X(q[0]))},${f(Y(q[2]))}`)
    p.push(`<polygon class="band" points="${[...upper, ...lower].join(" ")}" fill="${c}" fill-opacity="0.15" stroke="none"/>`)
  }
  p.push(
    `<polyline data-series="${esc(s.name)}" points="${s.points.map((q) => `${f(X(q[0]))},${f(Y(q[1]))}`).join(" ")}" fill="none" stroke="${c}" stroke-width="1.8"${dash ? ` stroke-dasharray="${dash}"` : ""}/>`
  )
  const v = (y: number): string => (rate ? `${(100 * y).toFixed(1)}%` : fmtTick(y))
  for (const q of s.points) {
    p.push(`<circle cx="${f(X(q[0]))}" cy="${f(Y(q[1]))}" r="2.2" fill="${c}"><title>${esc(s.name)} at step ${q[0]}: ${v(q[1])} (seeds ${v(q[2])}–${v(q[3])}, n = ${q[4]})</title></circle>`)
  }
  const body = p.join("")
  return s.href ? `<a href="${esc(s.href)}" class="curve">${body}</a>` : `<g class="curve">${body}</g>`
}

export const curveChart = (o: CurveOptions): string => {
  const rate = RATE_METRICS.has(o.metric)
  const [y0, y1] = yDomain(o)
  const x1 = o.xMax > 0 ? o.xMax : 1
  const pw = W - M.l - M.r
  const ph = H - M.t - M.b
  const X = (x: number): number => M.l + (x / x1) * pw
  const Y = (y: number): number => M.t + ph - ((y - y0) / (y1 - y0 || 1)) * ph
  const p: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" class="chart curves" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(o.title)}">`]
  p.push(`<title>${esc(o.title)}</title><text x="${M.l}" y="15" class="ct">${esc(o.title)}</text>`)
  for (const t of niceTicks(y0, y1, 4)) {
    p.push(`<line x1="${M.l}" x2="${M.l + pw}" y1="${f(Y(t))}" y2="${f(Y(t))}" class="grid"/>`)
    p.push(`<text x="${M.l - 4}" y="${f(Y(t) + 3)}" text-anchor="end" class="tick">${rate ? `${Math.round(100 * t)}%` : fmtTick(t)}</text>`)
  }
  for (const t of niceTicks(0, x1, 4)) p.push(`<text x="${f(X(t))}" y="${M.t + ph + 12}" text-anchor="middle" class="tick">${fmtTick(t)}</text>`)
  p.push(`<rect x="${M.l}" y="${M.t}" width="${pw}" height="${ph}" class="frame"/>`)
  p.push(`<text x="${M.l + pw}" y="${M.t + ph + 26}" text-anchor="end" class="tick">step</text>`)
  for (const s of o.series) p.push(seriesSvg(s, X, Y, rate))
  p.push("</svg>")
  return p.join("")
}

/** The filters' colours and dash patterns once per group of charts (the charts themselves carry no legend); `filters`: the page's. */
export const curveLegend = (names: ReadonlyArray<string>, filters: ReadonlyArray<string> = names): string => {
  const styles = filterStyles([...filters, ...names])
  return `<p class="legend-line">${names
    .map((n) => {
      const { colour, dash } = styles.get(n)!
      return `<span class="key" data-series="${esc(n)}"><svg width="34" height="10" aria-hidden="true"><line x1="1" x2="33" y1="5" y2="5" stroke="${colour}" stroke-width="2.5"${dash ? ` stroke-dasharray="${dash}"` : ""}/></svg>${esc(n)}</span>`
    })
    .join(" ")}</p>`
}
