/**
 * Input checks shared by the statistics: every function refuses NaN, ±Infinity and empty input
 * with an error naming the argument, so a bad number never turns into a plausible-looking interval.
 */

/** Throws a RangeError unless `xs` is non-empty and every value is finite. */
export const checkSample = (xs: ArrayLike<number>, what: string): void => {
  if (xs.length === 0) throw new RangeError(`${what}: empty sample (need at least one value)`)
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i]
    if (typeof v !== "number" || !Number.isFinite(v)) throw new RangeError(`${what}: value ${i} is ${String(v)}, not a finite number`)
  }
}

/** Throws a RangeError unless `x` is a finite number. */
export const checkFinite = (x: number, what: string): void => {
  if (typeof x !== "number" || !Number.isFinite(x)) throw new RangeError(`${what} is ${String(x)}, not a finite number`)
}

/** Throws a RangeError unless `level` is a probability strictly between 0 and 1. */
export const checkLevel = (level: number, what: string): void => {
  if (!(level > 0 && level < 1)) throw new RangeError(`${what} must be in (0, 1), got ${String(level)}`)
}

/** Throws a RangeError unless `b` is an integer ≥ 1. */
export const checkResamples = (b: number, what: string): void => {
  if (!(Number.isInteger(b) && b >= 1)) throw new RangeError(`${what}: resamples must be an integer >= 1, got ${String(b)}`)
}
