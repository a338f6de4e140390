/**
 * One colour per filter on every page: the built-in filters have fixed colours (Okabe & Ito's
 * colour-blind-safe palette, 2008), any other label hashes into an extended set, so the same
 * label gets the same colour on every page and in every build. The verdict colours are the
 * blue/vermillion pair, which read apart under every common colour-vision deficiency.
 */
import { createHash } from "node:crypto"

const FIXED: Readonly<Record<string, string>> = {
  none: "#000000",
  "top-p-softmax": "#0072B2",
  "top-p": "#0072B2",
  random: "#E69F00",
  "top-k": "#009E73",
  "top-p-linear": "#CC79A7",
  "top-k-linear": "#56B4E9"
}

/** For labels without a fixed colour: Okabe–Ito's remaining hues and Tol's muted set. */
const EXTRA = ["#D55E00", "#882255", "#117733", "#332288", "#999933", "#44AA99", "#AA4499", "#661100"]

export const NOISE_FLOOR_COLOUR = "#8a8a8a"
export const BETTER_COLOUR = "#0072B2"
export const WORSE_COLOUR = "#D55E00"

export const colourOf = (label: string): string => {
  if (label.startsWith("none′")) return NOISE_FLOOR_COLOUR
  const fixed = FIXED[label]
  if (fixed) return fixed
  // A variant of a built-in (other options, another stream) hashes too, so two variants differ.
  return EXTRA[createHash("sha256").update(label).digest()[0]! % EXTRA.length]!
}

/** A dash pattern per label, so two curves of close colours still differ in print. */
export const dashOf = (label: string): string => {
  if (label.startsWith("none′")) return "4 3"
  if (label === "none") return ""
  const h = createHash("sha256").update(`dash:${label}`).digest()
  return ["", "", "6 2", "2 2"][h[0]! % 4]!
}
