/**
 * One horizontal interval chart, the building block of the forest plots and of the rliable-style
 * IQM / P(improvement) panels: one line per item with its point estimate and interval on a FIXED
 * domain the caller chooses (the same on every panel of a page, so panels compare), optional
 * reference lines and one shaded band (the noise floor). Static SVG; every label escaped; each
 * item can link to its runs and carries a <title> (the hover text, no script needed).
 */
import { esc } from "../escape.ts"
import { niceTicks } from "../svg.ts"

export interface IntervalItem {
  readonly label: string
  readonly value: number
  readonly lo: number | null
  readonly hi: number | null
  readonly colour: string
  /** Filled point (a separated result) or hollow (not separated, a reference). */
  readonly filled: boolean
  /** Right-hand text (e.g. "+2.5 ▲ better") and its colour. */
  readonly note: string
  readonly noteColour: string
  /** Bold note (a separated result). */
  readonly strong?: boolean
  readonly hover: string
  readonly href?: string
  readonly dashed?: boolean
}

export interface IntervalChartOptions {
  readonly title: string
  readonly items: ReadonlyArray<IntervalItem>
  readonly domain: readonly [number, number]
  /** How a tick value reads ("+5", "50%"). */
  readonly tick: (v: number) => string
  readonly axisLabel: string
  readonly refLines?: ReadonlyArray<{ readonly at: number; readonly label: string }>
  readonly band?: { readonly lo: number; readonly hi: number; readonly label: string } | null
  /** "dot": point and whisker (forest); "bar": a translucent interval bar with a tick (rliable). */
  readonly style?: "dot" | "bar"
  readonly kind: string
}

const NOTE_W = 150
const TOP = 34
const BOTTOM = 30
/** Characters of a label per line (11px), and its lines at most: a longer label wraps at spaces, then is cut with "…". */
const LABEL_CHARS = 26
const LABEL_LINES = 2

/** Sizes of a chart: one-line labels keep the compact layout; a wrapped one widens the label column and the rows. */
interface Layout {
  readonly W: number
  readonly labelW: number
  readonly rowH: number
}

const f = (v: number): string => v.toFixed(1)
const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

/** A label in lines of at most LABEL_CHARS, broken at spaces (a word longer than a line is cut), at most LABEL_LINES. */
export const wrapLabel = (s: string): string[] => {
  const lines: string[] = []
  let line = ""
  for (const word of s.split(/\s+/).filter((w) => w !== "")) {
    const next = line ? `${line} ${word}` : word
    if (next.length <= LABEL_CHARS || line === "") line = next
    else {
      lines.push(line)
      line = word
    }
  }
  if (line) lines.push(line)
  const kept = lines.slice(0, LABEL_LINES).map((l) => clip(l, LABEL_CHARS))
  if (lines.length > LABEL_LINES) kept[LABEL_LINES - 1] = clip(`${kept[LABEL_LINES - 1]!} ${lines.slice(LABEL_LINES).join(" ")}`, LABEL_CHARS)
  return kept.length ? kept : [""]
}

const layoutOf = (items: ReadonlyArray<IntervalItem>): Layout => {
  const wraps = items.some((it) => it.label.length > 20)
  return wraps ? { W: 510, labelW: 168, rowH: 30 } : { W: 470, labelW: 128, rowH: 22 }
}

/** The frame: title, grid, ticks, axis label, reference lines and the band. */
const frame = (o: IntervalChartOptions, X: (v: number) => number, plotH: number, { W, labelW: LABEL_W }: Layout): string[] => {
  const p: string[] = [`<text x="4" y="14" class="ct">${esc(o.title)}</text>`]
  const bottom = TOP + plotH
  if (o.band) {
    const x0 = X(Math.max(o.domain[0], o.band.lo))
    const x1 = X(Math.min(o.domain[1], o.band.hi))
    p.push(`<rect class="band" x="${f(x0)}" y="${TOP}" width="${f(Math.max(1, x1 - x0))}" height="${plotH}" fill="#d9d9e6"><title>${esc(o.band.label)}</title></rect>`)
  }
  for (const t of niceTicks(o.domain[0], o.domain[1], 4)) {
    p.push(`<line x1="${f(X(t))}" x2="${f(X(t))}" y1="${TOP}" y2="${bottom}" class="grid"/>`)
    p.push(`<text x="${f(X(t))}" y="${bottom + 12}" text-anchor="middle" class="tick">${esc(o.tick(t))}</text>`)
  }
  for (const r of o.refLines ?? []) {
    p.push(`<line x1="${f(X(r.at))}" x2="${f(X(r.at))}" y1="${TOP - 4}" y2="${bottom}" stroke="#333" stroke-width="1"/>`)
    p.push(`<text x="${f(X(r.at))}" y="${TOP - 6}" text-anchor="middle" class="tick">${esc(r.label)}</text>`)
  }
  p.push(`<text x="${f(LABEL_W + (W - LABEL_W - NOTE_W) / 2)}" y="${bottom + 25}" text-anchor="middle" class="tick">${esc(o.axisLabel)}</text>`)
  return p
}

/** One item's line: its label, interval, point and note, wrapped in a link to its runs when it has one. */
const itemRow = (o: IntervalChartOptions, it: IntervalItem, i: number, X: (v: number) => number, { W, labelW: LABEL_W, rowH: ROW_H }: Layout): string => {
  const y = TOP + ROW_H * i + ROW_H / 2
  const clamp = (v: number): number => Math.min(o.domain[1], Math.max(o.domain[0], v))
  const p: string[] = [`<title>${esc(it.hover)}</title>`]
  const lines = ROW_H > 22 ? wrapLabel(it.label) : [it.label]
  const y0 = y + 4 - ((lines.length - 1) * 12) / 2
  p.push(`<text x="${LABEL_W - 6}" y="${f(y0)}" text-anchor="end" class="lbl">${lines.map((l, k) => `<tspan x="${LABEL_W - 6}" dy="${k === 0 ? 0 : 12}">${esc(l)}</tspan>`).join("")}</text>`)
  const dash = it.dashed ? ' stroke-dasharray="4 3"' : ""
  if (it.lo !== null && it.hi !== null) {
    const x0 = X(clamp(it.lo))
    const x1 = X(clamp(it.hi))
    if (o.style === "bar") p.push(`<rect x="${f(x0)}" y="${f(y - 7)}" width="${f(Math.max(2, x1 - x0))}" height="14" fill="${it.colour}" fill-opacity="0.35"/>`)
    else p.push(`<line x1="${f(x0)}" x2="${f(x1)}" y1="${f(y)}" y2="${f(y)}" stroke="${it.colour}" stroke-width="2.2"${dash}/>`)
    // An interval wider than the shared axis ends in an arrow: it goes on beyond the panel.
    if (it.lo < o.domain[0]) p.push(`<path class="clipped" d="M${f(x0)},${f(y)} l6,-4 v8 z" fill="${it.colour}"/>`)
    if (it.hi > o.domain[1]) p.push(`<path class="clipped" d="M${f(x1)},${f(y)} l-6,-4 v8 z" fill="${it.colour}"/>`)
  }
  const x = X(clamp(it.value))
  if (o.style === "bar") p.push(`<line x1="${f(x)}" x2="${f(x)}" y1="${f(y - 8)}" y2="${f(y + 8)}" stroke="${it.colour}" stroke-width="2.5"/>`)
  else p.push(`<circle cx="${f(x)}" cy="${f(y)}" r="4.5" stroke="${it.colour}" stroke-width="2" fill="${it.filled ? it.colour : "#fff"}"/>`)
  p.push(`<text x="${W - NOTE_W + 6}" y="${f(y + 4)}" class="note-t${it.strong ? " strong" : ""}" fill="${it.noteColour}">${esc(it.note)}</text>`)
  const body = p.join("")
  const attrs = `class="item" data-label="${esc(it.label)}"`
  return it.href ? `<a href="${esc(it.href)}" ${attrs}>${body}</a>` : `<g ${attrs}>${body}</g>`
}

export const intervalChart = (o: IntervalChartOptions): string => {
  const layout = layoutOf(o.items)
  const { W, labelW: LABEL_W, rowH: ROW_H } = layout
  const plotH = Math.max(1, o.items.length) * ROW_H
  const H = TOP + plotH + BOTTOM
  const [d0, d1] = o.domain
  const X = (v: number): number => LABEL_W + ((v - d0) / (d1 - d0 || 1)) * (W - LABEL_W - NOTE_W)
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart ${esc(o.kind)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(o.title)}">`,
    `<title>${esc(o.title)}</title>`,
    ...frame(o, X, plotH, layout),
    ...o.items.map((it, i) => itemRow(o, it, i, X, layout)),
    "</svg>"
  ]
  return parts.join("")
}

/** A symmetric domain in score units that holds every interval (at least ±`floor`), on a nice tick. */
export const symmetricDomain = (values: ReadonlyArray<number | null>, floor = 0.05): readonly [number, number] => {
  let m = floor
  for (const v of values) if (v !== null && Number.isFinite(v)) m = Math.max(m, Math.abs(v))
  const step = niceTicks(0, m, 2)
  const top = step.length > 1 ? step[1]! * Math.ceil(m / step[1]! - 1e-9) : m
  return [-top, top]
}
