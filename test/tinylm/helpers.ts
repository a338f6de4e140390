/** Finite-difference helpers for the tinylm kernel tests (float32 kernels, float64 losses). */
import type { LossFn } from "../../core/contracts/index.ts"
import { Rng } from "../../core/rng.ts"
import { adamwUpdate } from "../../plugins/tinylm/adamw.ts"
import { carveArena } from "../../plugins/tinylm/arena.ts"
import type { Kernels } from "../../plugins/tinylm/kernels/dispatch.ts"

export const randn = (n: number, rng: Rng, s = 1): Float32Array => {
  const x = new Float32Array(n)
  for (let i = 0; i < n; i++) x[i] = rng.normal() * s
  return x
}

export const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!
  return s
}

/**
 * Max relative error |analytic − numeric| / max(floor, |analytic| + |numeric|) over (up to `limit`)
 * coordinates of x, with central differences of step h.
 */
export const fdMaxRelError = (x: Float32Array, analytic: Float32Array, loss: () => number, h = 1e-2, limit = 64, floor = 1e-2): number => {
  let worst = 0
  const stride = Math.max(1, Math.floor(x.length / limit))
  for (let i = 0; i < x.length; i += stride) {
    const old = x[i]!
    x[i] = old + h
    const up = loss()
    x[i] = old - h
    const down = loss()
    x[i] = old
    const num = (up - down) / (2 * h)
    const err = Math.abs(analytic[i]! - num) / Math.max(floor, Math.abs(analytic[i]!) + Math.abs(num))
    if (err > worst) worst = err
  }
  return worst
}

// a loss that uses all three heads: weighted logprobs, entropy bonus, value regression
export const mixedLoss: LossFn = (fwd) => {
  let loss = 0
  const grads = fwd.map((f, k) => {
    const n = f.logprobs.length
    const dl = new Float32Array(n),
      de = new Float32Array(n),
      dv = new Float32Array(n)
    for (let i = 0; i < n; i++) {
      const w = ((k + i) % 3) - 1
      loss += -w * f.logprobs[i]! - 0.1 * f.entropy[i]! + 0.5 * (f.values[i]! - 1) ** 2
      dl[i] = -w
      de[i] = -0.1
      dv[i] = f.values[i]! - 1
    }
    return { dLogprobs: dl, dEntropy: de, dValues: dv }
  })
  return { loss, grads, stats: {} }
}

/**
 * Whole-model finite-difference check: max relative error between the gradient `g` (a copy of the
 * model's grads after accumulate) and central differences of `loss` on `perTensor` coordinates of
 * every parameter tensor (step h, floor for the relative error).
 */
export const wholeModelFdError = async (
  model: { readonly tensors: ReadonlyArray<{ readonly name: string; readonly offset: number; readonly size: number }>; readonly p: Record<string, Float32Array> },
  g: Float32Array,
  loss: () => Promise<number>,
  o: { readonly h: number; readonly perTensor: number; readonly floor: number }
): Promise<number> => {
  let worst = 0
  for (const t of model.tensors) {
    const x = model.p[t.name]!
    const stride = Math.max(1, Math.floor(t.size / o.perTensor))
    for (let i = 0; i < t.size; i += stride) {
      const old = x[i]!
      x[i] = old + o.h
      const up = await loss()
      x[i] = old - o.h
      const down = await loss()
      x[i] = old
      const num = (up - down) / (2 * o.h),
        ga = g[t.offset + i]!
      worst = Math.max(worst, Math.abs(num - ga) / Math.max(o.floor, Math.abs(num) + Math.abs(ga)))
    }
  }
  return worst
}

/** max |a − b| / (1 + |b|): the kernels' parity measure against the JS reference. */
export const relDiff = (a: Float32Array, b: Float32Array): number => {
  let w = 0
  for (let i = 0; i < a.length; i++) w = Math.max(w, Math.abs(a[i]! - b[i]!) / (1 + Math.abs(b[i]!)))
  return w
}

export const absDiff = (a: Float32Array, b: Float32Array): number => {
  let w = 0
  for (let i = 0; i < a.length; i++) w = Math.max(w, Math.abs(a[i]! - b[i]!))
  return w
}

/** Views in one memory, attached to a kernel backend, the f32 ones filled with N(0, s). */
export const kernelArena = (sizes: Record<string, number>, rng: Rng, attach: (m: WebAssembly.Memory) => void, s = 1, ints: Record<string, number> = {}) => {
  const a = carveArena([...Object.entries(sizes).map(([name, size]) => ({ name, size })), ...Object.entries(ints).map(([name, size]) => ({ name, size, kind: "i32" as const }))])
  attach(a.memory)
  for (const v of Object.values(a.f32)) for (let i = 0; i < v.length; i++) v[i] = rng.normal() * s
  return a
}

/**
 * residualForward of `k` against the JS reference (plugins/tinylm/kernels/residual.ts), bit for bit:
 * ragged lengths, one length past the pointwise split (2^16 natively and in wasm: two threads share it), and −0, ±∞,
 * NaN and sums that round. Returns how many elements differ (NaN matches any NaN).
 */
export const residualMismatches = (k: Kernels, attach: (m: WebAssembly.Memory) => void): number => {
  const rng = new Rng(17)
  let bad = 0
  for (const N of [1, 3, 4, 7, 17, 130, 1027, (1 << 18) + 5]) {
    const a = kernelArena({ x: N, y: N, out: N }, rng, attach, 3).f32
    a.x!.set([-0, Infinity, Number.NaN, 1 + 2 ** -23, -Infinity].slice(0, N))
    a.y!.set([-0, -Infinity, 1, 2 ** -24, 5].slice(0, N))
    const want = new Float32Array(N)
    for (let i = 0; i < N; i++) want[i] = a.x![i]! + a.y![i]!
    k.residualForward(a.out!, a.x!, a.y!, N)
    for (let i = 0; i < N; i++) if (!Object.is(a.out![i], want[i]) && !(Number.isNaN(a.out![i]) && Number.isNaN(want[i]))) bad++
  }
  return bad
}

/**
 * adamwUpdate of `k` against the JS reference (plugins/tinylm/adamw.ts), bit for bit: three steps
 * on ragged lengths, with and without weight decay and gradient scaling. Returns how many
 * parameters and moments differ.
 */
export const adamwMismatches = (k: Kernels, attach: (m: WebAssembly.Memory) => void): number => {
  const rng = new Rng(19)
  let bad = 0
  for (const n of [1, 5, 8, 17, 1000]) {
    const a = kernelArena({ p: n, g: n, m: n, v: n }, rng, attach, 0.5).f32
    a.v!.set(a.v!.map((x) => x * x))
    const ref = { p: a.p!.slice(), m: a.m!.slice(), v: a.v!.slice() }
    for (const [t, wd, scale] of [
      [1, 0, 1],
      [2, 0.1, 0.37],
      [3, 0.01, 1]
    ] as const) {
      const bc1 = 1 - 0.9 ** t,
        bc2 = 1 - 0.999 ** t
      k.adamwUpdate(a.p!, a.g!, a.m!, a.v!, 3e-3, 0.9, 0.999, 1e-8, wd, bc1, bc2, scale)
      adamwUpdate(ref.p, a.g!, ref.m, ref.v, 3e-3, 0.9, 0.999, 1e-8, wd, bc1, bc2, scale)
    }
    for (const [x, y] of [
      [a.p!, ref.p],
      [a.m!, ref.m],
      [a.v!, ref.v]
    ] as const)
      for (let i = 0; i < n; i++) if (!Object.is(x[i], y[i])) bad++
  }
  return bad
}

/**
 * Every kernel once on a memory filled with a marker byte: how many bytes changed, and how many
 * of those lie outside the kernels' outputs (a kernel spilling to a C stack or past its output
 * writes there). `transposed` also runs the broadcast-form matmul with its transposed-weight slot.
 */
export const strayWrites = (k: Kernels, attach: (m: WebAssembly.Memory) => void, o: { readonly transposed?: boolean } = {}): { stray: number; changed: number } => {
  const rng = new Rng(10)
  const BT = 5,
    C = 12,
    OC = 9,
    B = 2,
    T = 5,
    NH = 3
  const a = carveArena([
    { name: "inp", size: BT * C },
    { name: "w", size: OC * C },
    { name: "b", size: OC },
    { name: "dout", size: BT * OC },
    { name: "qkv", size: B * T * 3 * C },
    { name: "ay", size: B * T * C },
    { name: "lens", size: B, kind: "i32" },
    { name: "out", size: BT * OC },
    { name: "dinp", size: BT * C },
    { name: "dw", size: OC * C },
    { name: "db", size: OC },
    { name: "att", size: B * NH * T * T },
    { name: "y", size: B * T * C },
    { name: "dqkv", size: B * T * 3 * C },
    { name: "scratch", size: T },
    { name: "g", size: BT * C },
    { name: "mean", size: BT },
    { name: "rstd", size: BT },
    { name: "lndx", size: BT * C },
    { name: "lndw", size: C },
    { name: "lndb", size: C },
    ...(o.transposed ? [{ name: "wt", size: OC * C }] : [])
  ])
  attach(a.memory)
  const bytes = new Uint8Array(a.memory.buffer)
  bytes.fill(0x5a)
  const f = a.f32
  for (const n of ["inp", "w", "b", "dout", "qkv", "ay", "dinp", "dw", "db", "dqkv", "g"]) for (let i = 0; i < f[n]!.length; i++) f[n]![i] = rng.normal()
  a.i32.lens!.set([5, 3])
  const before = bytes.slice()
  k.matmulForward(f.out!, f.inp!, f.w!, f.b!, BT, C, OC)
  if (o.transposed) k.matmulForward(f.out!, f.inp!, f.w!, f.b!, BT, C, OC, f.wt!)
  k.matmulBackward(f.dinp!, f.dw!, f.db!, f.dout!, f.inp!, f.w!, BT, C, OC)
  k.attentionForward(f.y!, f.att!, f.qkv!, a.i32.lens!, B, T, C, NH)
  k.attentionBackward(f.dqkv!, f.scratch!, f.ay!, f.qkv!, f.att!, a.i32.lens!, B, T, C, NH)
  k.geluBackward(f.g!, f.inp!, f.dinp!, BT * C)
  k.geluForward(f.g!, f.inp!, BT * C)
  k.layernormForward(f.g!, f.mean!, f.rstd!, f.inp!, f.w!.subarray(0, C), f.w!.subarray(C, 2 * C), BT, C)
  k.layernormBackward(f.lndx!, f.lndw!, f.lndb!, f.inp!, f.inp!, f.w!.subarray(0, C), f.mean!, f.rstd!, BT, C)
  const names = ["out", ...(o.transposed ? ["wt"] : []), "dinp", "dw", "db", "att", "y", "dqkv", "scratch", "g", "mean", "rstd", "lndx", "lndw", "lndb"]
  const outputs = names.map((n) => [a.offsets[n]!, a.offsets[n]! + f[n]!.byteLength] as const)
  let stray = 0,
    changed = 0
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === before[i]) continue
    changed++
    if (!outputs.some(([s, e]) => i >= s && i < e)) stray++
  }
  return { stray, changed }
}
