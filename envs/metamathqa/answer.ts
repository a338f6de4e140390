/**
 * Normalized exact-match grading of a final answer (MetaMathQA's "The answer is: X").
 * Normalization: lowercase; drop "the answer is", "$", ",", "%", "\boxed{…}" wrappers, spaces
 * (so the digit-by-digit form "2 5" reads as 25), and trailing unit words; then "12.0" ≡ "12",
 * and when both sides parse as numbers (integers, decimals, fractions "a/b", "\frac{a}{b}")
 * they match on exact rational equality. Otherwise the normalized strings must be equal.
 */
import { rat, eq, type Rational } from "../countdown/rational.ts"

export const MAX_ANSWER_CHARS = 200

export const normalizeAnswer = (text: string): string => {
  let s = String(text)
    .slice(0, MAX_ANSWER_CHARS * 4)
    .toLowerCase()
    .trim()
  s = s.replace(/^.*the answer is\s*:?/s, "")
  s = s
    .replace(/\\boxed\{(.*)\}/g, "$1")
    .replace(/\\frac\{([^{}]*)\}\{([^{}]*)\}/g, "($1)/($2)")
    .replace(/\\[,!; ]/g, "")
  s = s.replace(/[$,%]|\\\$/g, "").trim()
  // Trailing unit words ("12 dollars", "5 hours") go; a leading number decides.
  const m = /^(-?[\d\s./()]+?)\s*[a-z][a-z\s.]*$/.exec(s)
  if (m) s = m[1]!
  s = s.replace(/\s+/g, "").replace(/\.$/, "")
  s = s.replace(/^\((-?\d+)\)\/\((\d+)\)$/, "$1/$2")
  if (/^-?\d+\.0+$/.test(s)) s = s.replace(/\.0+$/, "")
  return s
}

/** Exact rational value of a normalized answer (integer, decimal, or a/b), if it is a number. */
export const numericValue = (s: string): Rational | undefined => {
  let m = /^(-?)(\d{1,30})(?:\.(\d{1,30}))?$/.exec(s)
  if (m) {
    const frac = m[3] ?? ""
    const n = BigInt(m[2]! + frac) * (m[1] === "-" ? -1n : 1n)
    return rat(n, 10n ** BigInt(frac.length))
  }
  m = /^(-?\d{1,30})\/(\d{1,30})$/.exec(s)
  if (m) return rat(BigInt(m[1]!), BigInt(m[2]!))
  return undefined
}

/** Does `given` match the reference answer after normalization? */
export const answersMatch = (given: string, reference: string): boolean => {
  const a = normalizeAnswer(given)
  const b = normalizeAnswer(reference)
  if (a.length === 0) return false
  const x = numericValue(a)
  const y = numericValue(b)
  if (x && y) return eq(x, y)
  return a === b
}
