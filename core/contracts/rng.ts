/**
 * Seeded, splittable PRNG of our own (no Math.random in the project). It lives among the
 * contracts because envs, filters and policies receive one, and its exact stream is part of what
 * they may rely on (same seed ⇒ same numbers on every runtime). core/rng.ts re-exports it with
 * `derive` and the legend of the stream labels.
 *
 * Generator: xoshiro128** (Blackman & Vigna, 2018) on four uint32 words, seeded by
 * SplitMix32 from a 32-bit seed or the FNV-1a hash of a string. Only 32-bit integer
 * ops (Math.imul, >>>), so the stream is identical on Bun, Deno and Node.
 * `split(label)` derives an independent child stream from the parent's next output
 * and the label's hash, without disturbing sibling streams of other labels.
 */

export const fnv1a = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

const splitmix32 = (state: { s: number }): number => {
  state.s = (state.s + 0x9e3779b9) | 0
  let z = state.s
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return (z ^ (z >>> 16)) >>> 0
}

const rotl = (x: number, k: number): number => (x << k) | (x >>> (32 - k))

export class Rng {
  private a: number
  private b: number
  private c: number
  private d: number
  private spare: number | undefined

  constructor(seed: number | string = 0) {
    const st = { s: typeof seed === "string" ? fnv1a(seed) : (seed >>> 0) ^ Math.floor(seed / 4294967296) }
    this.a = splitmix32(st)
    this.b = splitmix32(st)
    this.c = splitmix32(st)
    this.d = splitmix32(st)
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1
  }

  /** Next uint32. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0
    const t = this.b << 9
    this.c ^= this.a
    this.d ^= this.b
    this.b ^= this.c
    this.a ^= this.d
    this.c ^= t
    this.d = rotl(this.d, 11)
    return result
  }

  /** Uniform float in [0, 1) with 53 bits. */
  float(): number {
    const hi = this.nextU32() >>> 5
    const lo = this.nextU32() >>> 6
    return (hi * 67108864 + lo) / 9007199254740992
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!(n >= 1)) throw new RangeError(`Rng.int: n must be >= 1, got ${n}`)
    return Math.floor(this.float() * n)
  }

  /** Uniform integer in [lo, hi] inclusive. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1)
  }

  bool(p = 0.5): boolean {
    return this.float() < p
  }

  /** Standard normal (Box–Muller, caches the second value). */
  normal(): number {
    if (this.spare !== undefined) {
      const v = this.spare
      this.spare = undefined
      return v
    }
    let u = 0
    while (u === 0) u = this.float()
    const v = this.float()
    const r = Math.sqrt(-2 * Math.log(u))
    this.spare = r * Math.sin(2 * Math.PI * v)
    return r * Math.cos(2 * Math.PI * v)
  }

  pick<T>(xs: ReadonlyArray<T>): T {
    if (xs.length === 0) throw new RangeError("Rng.pick: empty array")
    return xs[this.int(xs.length)]!
  }

  /** Fisher–Yates shuffle in place; returns the array. */
  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.int(i + 1)
      const t = xs[i]!
      xs[i] = xs[j]!
      xs[j] = t
    }
    return xs
  }

  /** An independent child stream. Same parent state and label ⇒ same child. */
  split(label: string | number = ""): Rng {
    const child = new Rng(0)
    const st = { s: (this.nextU32() ^ fnv1a(String(label))) >>> 0 }
    child.a = splitmix32(st)
    child.b = splitmix32(st)
    child.c = splitmix32(st)
    child.d = splitmix32(st)
    if ((child.a | child.b | child.c | child.d) === 0) child.a = 1
    return child
  }

  /** Serializable state (for checkpoints / resume). */
  getState(): [number, number, number, number] {
    return [this.a >>> 0, this.b >>> 0, this.c >>> 0, this.d >>> 0]
  }

  setState(s: readonly [number, number, number, number]): void {
    this.a = s[0] | 0
    this.b = s[1] | 0
    this.c = s[2] | 0
    this.d = s[3] | 0
    this.spare = undefined
  }
}
