/**
 * A small SVG line-chart renderer of our own: axes with "nice" ticks, one polyline per series,
 * a legend. Output is a self-contained <svg> string (no external assets); every label is
 * escaped. Series carry their name in data-series so tests and scripts can find them.
 */
import { esc } from "./escape.ts"
import type { Series } from "./schema.ts"

/** Colour-blind-safe palette (Okabe & Ito, 2008). */
export const PALETTE = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"]

export interface ChartOptions {
  readonly title: string
  readonly series: ReadonlyArray<Series>
  readonly width?: number
  readonly height?: number
  readonly xLabel?: string
}

/** Round tick step to 1, 2 or 5 × 10^k (Heckbert's "nice numbers", Graphics Gems 1990). */
export const niceTicks = (lo: number, hi: number, target = 5): number[] => {
  if (!(hi > lo)) return [lo]
  const raw = (hi - lo) / target
  const mag = 10 ** Math.floor(Math.log10(raw))
  const f = raw / mag
  const step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag
  const out: number[] = []
  for (let k = Math.ceil(lo / step - 1e-9); k <= Math.floor(hi / step + 1e-9); k++) out.push(Number((k * step).toPrecision(12)))
  return out
}

const fmtTick = (t: number): string => (Math.abs(t) >= 1000 ? t.toFixed(0) : String(Number(t.toPrecision(4))))

export const lineChart = (o: ChartOptions): string => {
  const W = o.width ?? 360
  const H = o.height ?? 220
  const m = { l: 44, r: 10, t: 24, b: 30 + 14 * Math.ceil(o.series.length / 2) }
  const pw = W - m.l - m.r
  const ph = H - m.t - m.b
  // Bounds by a loop, not Math.min(...points): a spread of millions overflows the call stack.
  let x0 = Infinity,
    x1 = -Infinity,
    y0 = Infinity,
    y1 = -Infinity
  for (const s of o.series) {
    for (const [x, y] of s.points) {
      if (x < x0) x0 = x
      if (x > x1) x1 = x
      if (y < y0) y0 = y
      if (y > y1) y1 = y
    }
  }
  if (!Number.isFinite(x0)) (x0 = 0), (x1 = 1), (y0 = 0), (y1 = 1)
  if (!(x1 > x0)) x1 = x0 + 1
  if (!(y1 > y0)) {
    y0 -= 0.5
    y1 += 0.5
  }
  const X = (x: number): number => m.l + ((x - x0) / (x1 - x0)) * pw
  const Y = (y: number): number => m.t + ph - ((y - y0) / (y1 - y0)) * ph
  const f = (v: number): string => v.toFixed(1)
  const parts: string[] = []
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(o.title)}">`)
  parts.push(`<title>${esc(o.title)}</title>`)
  parts.push(`<text x="${m.l}" y="15" class="ct">${esc(o.title)}</text>`)
  for (const t of niceTicks(y0, y1)) {
    parts.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${f(Y(t))}" y2="${f(Y(t))}" class="grid"/>`)
    parts.push(`<text x="${m.l - 4}" y="${f(Y(t) + 3)}" text-anchor="end" class="tick">${fmtTick(t)}</text>`)
  }
  for (const t of niceTicks(x0, x1)) {
    parts.push(`<text x="${f(X(t))}" y="${m.t + ph + 12}" text-anchor="middle" class="tick">${fmtTick(t)}</text>`)
  }
  parts.push(`<rect x="${m.l}" y="${m.t}" width="${pw}" height="${ph}" class="frame"/>`)
  parts.push(`<text x="${m.l + pw}" y="${m.t + ph + 24}" text-anchor="end" class="tick">${esc(o.xLabel ?? "step")}</text>`)
  o.series.forEach((s, i) => {
    const c = PALETTE[i % PALETTE.length]!
    const d = s.points.map((p) => `${f(X(p[0]))},${f(Y(p[1]))}`).join(" ")
    parts.push(`<polyline data-series="${esc(s.name)}" points="${d}" fill="none" stroke="${c}" stroke-width="1.6"/>`)
    if (s.points.length === 1) parts.push(`<circle cx="${f(X(s.points[0]![0]))}" cy="${f(Y(s.points[0]![1]))}" r="2.5" fill="${c}"/>`)
    const lx = m.l + (i % 2) * (pw / 2)
    const ly = m.t + ph + 38 + 14 * Math.floor(i / 2)
    parts.push(`<line x1="${lx}" x2="${lx + 14}" y1="${ly - 4}" y2="${ly - 4}" stroke="${c}" stroke-width="2"/>`)
    parts.push(`<text x="${lx + 18}" y="${ly}" class="lg">${esc(s.name.length > 28 ? s.name.slice(0, 27) + "…" : s.name)}</text>`)
  })
  parts.push("</svg>")
  return parts.join("")
}
