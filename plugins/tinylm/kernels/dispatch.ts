/**
 * The kernel indirection: model.ts and sampler.ts call `kernels.*`, so a validated fast path
 * (kernels/wasm/) can replace the plain JS reference without touching them.
 * Selection (once per process, on the first model): env RAGEN_KERNELS=js|wasm; by default wasm
 * when the embedded module loads and passes a self-check against the JS reference, else js.
 * RAGEN_VERBOSE=1 prints the choice once (stderr).
 */
import { UsageError } from "../../../core/errors.ts"
import { noteRuntime } from "../../../core/runtime.ts"
import { attentionBackward, attentionBackwardPrefixed, attentionDecode, attentionForward, attentionForwardPrefixed } from "./attention.ts"
import { geluBackward, geluForward } from "./gelu.ts"
import { headBackward, headForward } from "./head.ts"
import { layernormBackward, layernormForward } from "./layernorm.ts"
import { matmulBackward, matmulForward } from "./matmul.ts"
import * as w from "./wasm/loader.ts"
import { kernelThreads } from "./wasm/pool.ts"

/** Every kernel with a fast version; the plain JS functions are the spec of each. */
export interface Kernels {
  matmulForward: typeof matmulForward
  matmulBackward: typeof matmulBackward
  attentionForward: typeof attentionForward
  attentionBackward: typeof attentionBackward
  attentionForwardPrefixed: typeof attentionForwardPrefixed
  attentionBackwardPrefixed: typeof attentionBackwardPrefixed
  attentionDecode: typeof attentionDecode
  geluForward: typeof geluForward
  geluBackward: typeof geluBackward
  layernormForward: typeof layernormForward
  layernormBackward: typeof layernormBackward
  headForward: typeof headForward
  headBackward: typeof headBackward
}
/** The earlier name (matmul only). */
export type MatmulKernels = Kernels

export type KernelsName = "js" | "wasm"

export const plainKernels: Kernels = { matmulForward, matmulBackward, attentionForward, attentionBackward, attentionForwardPrefixed, attentionBackwardPrefixed, attentionDecode, geluForward, geluBackward, layernormForward, layernormBackward, headForward, headBackward }
export const wasmKernels: Kernels = {
  matmulForward: w.wasmMatmulForward,
  matmulBackward: w.wasmMatmulBackward,
  attentionForward: w.wasmAttentionForward,
  attentionBackward: w.wasmAttentionBackward,
  attentionForwardPrefixed: w.wasmAttentionForwardPrefixed,
  attentionBackwardPrefixed: w.wasmAttentionBackwardPrefixed,
  attentionDecode: w.wasmAttentionDecode,
  geluForward: w.wasmGeluForward,
  geluBackward: w.wasmGeluBackward,
  layernormForward: w.wasmLayernormForward,
  layernormBackward: w.wasmLayernormBackward,
  headForward: w.wasmHeadForward,
  headBackward: w.wasmHeadBackward
}

/** Mutable on purpose: `useKernels` swaps the implementation process-wide. */
export const kernels: Kernels = { ...plainKernels }

export const useKernels = (k: Kernels): void => {
  Object.assign(kernels, k)
}

/**
 * Max |wasm − js| / (1 + |js|) over small ragged calls of every wasm kernel against its JS
 * reference (forward and backward); Infinity when the module does not load.
 */
export const wasmSelfCheck = (): number => {
  try {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true })
    let off = 0
    // deterministic, non-trivial values (a fixed integer hash; no Rng needed)
    const view = (n: number, fill = true) => {
      const v = new Float32Array(memory.buffer, off, n)
      off += Math.ceil(n / 4) * 16
      if (fill) for (let i = 0; i < n; i++) v[i] = (((i * 2654435761 + n * 97) >>> 0) % 1000) / 500 - 1
      return v
    }
    w.attachMemory(memory)
    let worst = 0
    const compare = (run: (k: Kernels, out: Float32Array[]) => void, sizes: number[]) => {
      const a = sizes.map((n) => view(n, false)), b = sizes.map((n) => new Float32Array(n))
      run(wasmKernels, a)
      run(plainKernels, b)
      for (let k = 0; k < a.length; k++) for (let i = 0; i < a[k]!.length; i++) worst = Math.max(worst, Math.abs(a[k]![i]! - b[k]![i]!) / (1 + Math.abs(b[k]![i]!)))
    }
    const BT = 5, C = 7, OC = 6
    const inp = view(BT * C), wt = view(OC * C), bias = view(OC), dout = view(BT * OC)
    compare((k, [o]) => k.matmulForward(o!, inp, wt, bias, BT, C, OC), [BT * OC])
    const wtT = view(OC * C, false)
    compare((k, [o]) => k.matmulForward(o!, inp, wt, bias, BT, C, OC, wtT), [BT * OC])
    compare((k, [di, dw, db]) => k.matmulBackward(di!, dw!, db!, dout, inp, wt, BT, C, OC), [BT * C, OC * C, OC])
    compare((k, [o]) => k.geluForward(o!, inp, BT * OC), [BT * OC])
    compare((k, [d]) => k.geluBackward(d!, inp, dout, BT * OC), [BT * OC])
    const lnw = view(C), lnb = view(C), mean = view(BT, false), rstd = view(BT, false)
    compare((k, [o]) => k.layernormForward(o!, mean, rstd, inp, lnw, lnb, BT, C), [BT * C])
    compare((k, [di, dw, db]) => {
      k.layernormForward(view(BT * C, false), mean, rstd, inp, lnw, lnb, BT, C)
      k.layernormBackward(di!, dw!, db!, inp, inp, lnw, mean, rstd, BT, C)
    }, [BT * C, C, C])
    const HM = 3, HV = 7, HVp = 8
    const targets = new Int32Array(memory.buffer, off, HM)
    off += 16
    targets.set([0, 6, 3])
    const z = view(HM * HVp), hlp = view(HM, false), hen = view(HM, false), dl = view(HM), de = view(HM)
    compare((k, [pr, lp, en]) => k.headForward(pr!, lp!, en!, z, targets, HM, HV, HVp), [HM * HVp, HM, HM])
    compare((k, [dz]) => {
      const pr = view(HM * HVp, false)
      k.headForward(pr, hlp, hen, z, targets, HM, HV, HVp)
      k.headBackward(dz!, pr, z, hlp, hen, targets, dl, de, HM, HV, HVp)
    }, [HM * HVp])
    const B = 2, T = 3, AC = 8, NH = 2
    const lens = new Int32Array(memory.buffer, off, B)
    off += 16
    lens.set([3, 2])
    const qkv = view(B * T * 3 * AC), ay = view(B * T * AC)
    const att = view(B * NH * T * T, false), scratch = view(T, false)
    compare((k, [o]) => k.attentionForward(o!, att, qkv, lens, B, T, AC, NH), [B * T * AC])
    compare((k, [d]) => {
      k.attentionForward(view(B * T * AC, false), att, qkv, lens, B, T, AC, NH)
      k.attentionBackward(d!, scratch, ay, qkv, att, lens, B, T, AC, NH)
    }, [B * T * 3 * AC])
    // rows continuing prefixes: row 0 after 2 positions of prefix row 1, row 1 with no prefix
    const pref = new Int32Array(memory.buffer, off, 2 * B)
    off += 16
    pref.set([T + 1, 2, 0, 0])
    const Tk = T + 2, patt = view(B * NH * T * Tk, false), pscratch = view(2 * Tk, false), pqkv = view(B * T * 3 * AC)
    compare((k, [o]) => k.attentionForwardPrefixed(o!, patt, qkv, lens, B, T, AC, NH, pqkv, pref, Tk), [B * T * AC])
    compare((k, [d, dp]) => {
      k.attentionForwardPrefixed(view(B * T * AC, false), patt, qkv, lens, B, T, AC, NH, pqkv, pref, Tk)
      k.attentionBackwardPrefixed(d!, dp!, pscratch, ay, qkv, patt, lens, B, T, AC, NH, pqkv, pref, Tk)
    }, [B * T * 3 * AC, B * T * 3 * AC])
    return Number.isFinite(worst) ? worst : Infinity
  } catch (e) {
    if (process.env.RAGEN_VERBOSE === "1") console.error(`tinylm wasm self-check: ${(e as Error).message}`)
    return Infinity
  }
}

/** float32 vs float64 sums over ≤ 7 terms and a 2e-7 exp: differences are ~1e-6; 1e-4 leaves no doubt. */
const SELF_CHECK_TOL = 1e-4

let selected: { name: KernelsName; why: string } | undefined

/** Pick the kernels once (see the header); later calls return the same choice. */
export const selectKernels = (): { name: KernelsName; why: string } => {
  if (selected) return selected
  const want = process.env.RAGEN_KERNELS
  if (want !== undefined && want !== "" && want !== "js" && want !== "wasm") {
    throw new UsageError({ field: "RAGEN_KERNELS", message: `RAGEN_KERNELS=${want} is not a kernel set; use js or wasm (or leave it unset for wasm with a js fallback)` })
  }
  const err = want === "js" ? 0 : wasmSelfCheck()
  const ok = err < SELF_CHECK_TOL
  if (want === "wasm" && !ok) {
    throw new UsageError({ field: "RAGEN_KERNELS", message: `RAGEN_KERNELS=wasm but the WASM SIMD kernels ${err === Infinity ? "do not load on this runtime" : `fail their self-check (error ${err})`}; use RAGEN_KERNELS=js` })
  }
  selected = want === "js" ? { name: "js", why: "RAGEN_KERNELS=js" } : ok ? { name: "wasm", why: want === "wasm" ? "RAGEN_KERNELS=wasm" : "default, self-check passed" } : { name: "js", why: "wasm unavailable or failed its self-check" }
  useKernels(selected.name === "wasm" ? wasmKernels : plainKernels)
  noteRuntime("kernels", `tinylm:${selected.name}`)
  if (selected.name === "wasm") kernelThreads() // validates RAGEN_THREADS and notes the count next to the kernels
  if (process.env.RAGEN_VERBOSE === "1") console.error(`tinylm kernels: ${selected.name} (${selected.why})`)
  return selected
}

/** Called for every model arena: selects the kernels and gives wasm its memory. */
export const prepareArena = (memory: WebAssembly.Memory): void => {
  selectKernels()
  // attached even under js, so that a test can switch with useKernels(wasmKernels) later
  try {
    w.attachMemory(memory)
  } catch {
    // no WebAssembly SIMD here: the wasm kernels fall back to js for this arena
  }
}

// choose at load so the run's runtime info (written before any model exists) names the kernels;
// a bad RAGEN_KERNELS is reported by the first model instead (prepareArena → selectKernels)
try {
  selectKernels()
} catch {
  // rethrown on first use
}
