/**
 * A colour and a dash pattern per filter, each its own on the page: two filters never share a
 * colour, nor a dash pattern, so they read apart in print, in grey and under any colour-vision
 * deficiency. `none` is black and solid, the noise floor grey; every other filter takes one of
 * Okabe & Ito's colour-blind-safe hues (2008; yellow left out, too pale on white), then Tol's muted
 * set (none near black), and a dash pattern of its own. The suite's filters (labels.ts) and the
 * built-ins' plain names have fixed picks, so the quick and the standard pages draw them alike;
 * any other filter takes the first colour and pattern the page has not used, in the page's order
 * (so the same page always draws the same way). The verdict colours are the blue/vermillion pair,
 * which read apart under every common colour-vision deficiency.
 */

export const NOISE_FLOOR_COLOUR = "#8a8a8a"
export const BETTER_COLOUR = "#0072B2"
export const WORSE_COLOUR = "#D55E00"

/** Okabe–Ito without black and yellow, then Tol's muted set; every one far from black beside `none`. */
export const COLOURS: ReadonlyArray<string> = ["#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#882255", "#44AA99", "#999933", "#AA4499", "#117733", "#6699CC"]

/** Dash patterns, none of them solid (solid is `none`'s), each telling itself apart at a glance. */
export const DASHES: ReadonlyArray<string> = ["7 3", "2 2", "9 3 2 3", "4 2 1 2 1 2", "1 3", "12 3", "5 5", "8 2 2 2 2 2", "3 6", "10 4 4 4"]

const NOISE_FLOOR_DASHES: ReadonlyArray<string> = ["4 3", "1 2", "6 2 1 2"]

/** Fixed picks [colour index, dash index]: the suite's labels and the built-ins' names as the files give them. */
const PREFERRED: Readonly<Record<string, readonly [number, number]>> = {
  "top-p 0.9 (softmax, include zero)": [0, 0],
  "top-p-softmax": [0, 0],
  "top-p 0.9 (linear, drop zero)": [2, 1],
  "top-p": [2, 1],
  "random (top-p's count)": [3, 2],
  "random (linear top-p's count)": [3, 2],
  random: [3, 2],
  "Q4 (lowest-spread quarter, positive control)": [4, 3],
  quantile: [4, 3],
  "top-p 1.0 (linear, zero dropped)": [5, 5],
  "top-k 0.25": [6, 6],
  "top-k": [6, 6],
  "top-p-linear": [5, 5],
  "top-k-linear": [7, 7]
}

export interface FilterStyle {
  readonly colour: string
  /** An SVG stroke-dasharray; "" is solid. */
  readonly dash: string
}

const isFloor = (name: string): boolean => name.startsWith("none′")

/** Every filter of a page (in the page's order) with its colour and dash pattern, each its own. */
export const filterStyles = (filters: ReadonlyArray<string>): Map<string, FilterStyle> => {
  const out = new Map<string, FilterStyle>()
  const names = [...new Set(filters)]
  let floors = 0
  for (const n of names) {
    if (n === "none") out.set(n, { colour: "#000000", dash: "" })
    else if (isFloor(n)) out.set(n, { colour: NOISE_FLOOR_COLOUR, dash: NOISE_FLOOR_DASHES[floors++ % NOISE_FLOOR_DASHES.length]! })
  }
  const usedC = new Set<number>()
  const usedD = new Set<number>()
  const rest = names.filter((n) => !out.has(n))
  // Fixed picks first (a pick another filter on the page already took is given up), then the rest in order.
  const assigned = new Map<string, readonly [number, number]>()
  for (const n of rest) {
    const p = PREFERRED[n]
    if (p && !usedC.has(p[0]) && !usedD.has(p[1])) {
      assigned.set(n, p)
      usedC.add(p[0])
      usedD.add(p[1])
    }
  }
  const next = (used: Set<number>, size: number): number => {
    for (let i = 0; i < size; i++) if (!used.has(i)) return i
    return used.size % size // more filters than styles: they repeat, in pairs that still differ
  }
  for (const n of rest) {
    if (assigned.has(n)) continue
    const c = next(usedC, COLOURS.length)
    const d = next(usedD, DASHES.length)
    usedC.add(c)
    usedD.add(d)
    assigned.set(n, [c, d])
  }
  for (const n of rest) {
    const [c, d] = assigned.get(n)!
    out.set(n, { colour: COLOURS[c % COLOURS.length]!, dash: DASHES[d % DASHES.length]! })
  }
  return out
}

/** A filter's colour among the page's filters (alone: its fixed pick, or the first colour). */
export const colourOf = (label: string, filters: ReadonlyArray<string> = [label]): string => filterStyles([...filters, label]).get(label)!.colour

/** A filter's dash pattern among the page's filters ("" is solid: `none`). */
export const dashOf = (label: string, filters: ReadonlyArray<string> = [label]): string => filterStyles([...filters, label]).get(label)!.dash
