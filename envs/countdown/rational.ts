/**
 * Exact rationals on bigint (Countdown's division must be exact, never floating point).
 * Always normalized: d > 0 and gcd(|n|, d) = 1. Division by zero gives `undefined`.
 */
export interface Rational {
  readonly n: bigint
  readonly d: bigint
}

const gcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a
  b = b < 0n ? -b : b
  while (b !== 0n) [a, b] = [b, a % b]
  return a
}

export const rat = (n: bigint, d: bigint = 1n): Rational | undefined => {
  if (d === 0n) return undefined
  if (d < 0n) {
    n = -n
    d = -d
  }
  const g = gcd(n, d)
  return g > 1n ? { n: n / g, d: d / g } : { n, d }
}

export const ofInt = (k: number | bigint): Rational => ({ n: BigInt(k), d: 1n })

export type Op = "+" | "-" | "*" | "/"

export const apply = (op: Op, a: Rational, b: Rational): Rational | undefined => {
  switch (op) {
    case "+":
      return rat(a.n * b.d + b.n * a.d, a.d * b.d)
    case "-":
      return rat(a.n * b.d - b.n * a.d, a.d * b.d)
    case "*":
      return rat(a.n * b.n, a.d * b.d)
    case "/":
      return rat(a.n * b.d, a.d * b.n)
  }
}

export const eq = (a: Rational, b: Rational): boolean => a.n === b.n && a.d === b.d

export const isInt = (a: Rational): boolean => a.d === 1n

export const show = (a: Rational): string => (a.d === 1n ? a.n.toString() : `${a.n}/${a.d}`)
