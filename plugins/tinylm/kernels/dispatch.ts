/**
 * The kernel indirection: model.ts and sampler.ts call `kernels.*`, so a validated fast path
 * (kernels/native/ through FFI, kernels/wasm/) can replace the plain JS reference without touching them.
 * Selection (process-wide): the tinylm option `kernels: native|wasm|js|auto`, overridden by env
 * RAGEN_KERNELS; auto = native where the library loads and passes its self-check, else wasm where
 * the module does, else js. A native request that cannot be met falls back to wasm with one line
 * on stderr saying why. RAGEN_NATIVE_ISA=avx512|avx2|sse2 picks a build below the CPU's best
 * (avx512v0: the AVX-512 build before the numeric families, for old records).
 * RAGEN_VERBOSE=1 prints the choice once (stderr). The choice and its numeric family land in the
 * run's runtime notes (kernels, kernelsIsa, numericFamily).
 */
import { noteRuntime, UsageError } from "../../../core/host.ts"
import { adamwUpdate } from "../adamw.ts"
import { attentionBackward, attentionBackwardPrefixed, attentionDecode, attentionDecodeRows, attentionForward, attentionForwardPrefixed } from "./attention.ts"
import { geluBackward, geluForward } from "./gelu.ts"
import { headBackward, headForward } from "./head.ts"
import { layernormBackward, layernormForward } from "./layernorm.ts"
import { matmulBackward, matmulForward } from "./matmul.ts"
import { residualForward } from "./residual.ts"
import { fastKernels } from "./fast.ts"
import { CURRENT_NATIVE_ISAS, NATIVE_ISAS, type NativeIsa, nativeStatus } from "./native/ffi.ts"
import { attachNative, nativeKernelsFor } from "./native/loader.ts"
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
  attentionDecodeRows: typeof attentionDecodeRows
  residualForward: typeof residualForward
  adamwUpdate: typeof adamwUpdate
  geluForward: typeof geluForward
  geluBackward: typeof geluBackward
  layernormForward: typeof layernormForward
  layernormBackward: typeof layernormBackward
  headForward: typeof headForward
  headBackward: typeof headBackward
}
/** The earlier name (matmul only). */
export type MatmulKernels = Kernels

export type KernelsName = "js" | "wasm" | "native"
/** What a user asks for (the tinylm option `kernels`, env RAGEN_KERNELS). */
export type KernelsChoice = KernelsName | "auto"
export const KERNELS_CHOICES: ReadonlyArray<KernelsChoice> = ["auto", "native", "wasm", "js"]

export const plainKernels: Kernels = {
  matmulForward,
  matmulBackward,
  attentionForward,
  attentionBackward,
  attentionForwardPrefixed,
  attentionBackwardPrefixed,
  attentionDecode,
  attentionDecodeRows,
  residualForward,
  adamwUpdate,
  geluForward,
  geluBackward,
  layernormForward,
  layernormBackward,
  headForward,
  headBackward
}
export const wasmKernels: Kernels = fastKernels(w.wasmBackend)

/** Mutable on purpose: `useKernels` swaps the implementation process-wide. */
export const kernels: Kernels = { ...plainKernels }

export const useKernels = (k: Kernels): void => {
  Object.assign(kernels, k)
}

/** A self-check's memory: deterministic input views, int views, and the fast-against-JS comparison. */
interface CheckArena {
  readonly view: (n: number, fill?: boolean) => Float32Array
  readonly ints: (values: number[]) => Int32Array
  readonly compare: (run: (k: Kernels, out: Float32Array[]) => void, sizes: number[]) => void
}

/** The attention kernels' part of the self-check (forward, backward, decode rows, prefixed). */
const checkAttention = ({ view, ints, compare }: CheckArena): void => {
  const B = 2,
    T = 3,
    AC = 8,
    NH = 2
  const lens = ints([3, 2])
  const qkv = view(B * T * 3 * AC),
    ay = view(B * T * AC)
  const att = view(B * NH * T * T, false),
    scratch = view(T, false)
  compare((k, [o]) => k.attentionForward(o!, att, qkv, lens, B, T, AC, NH), [B * T * AC])
  compare(
    (k, [d]) => {
      k.attentionForward(view(B * T * AC, false), att, qkv, lens, B, T, AC, NH)
      k.attentionBackward(d!, scratch, ay, qkv, att, lens, B, T, AC, NH)
    },
    [B * T * 3 * AC]
  )
  // a decode step of both rows: slot 1 at position 2, slot 0 at position 0 (their k, v written into the caches first)
  const rows = ints([1, 2, 0, 0])
  const kc = view(B * T * AC),
    vc = view(B * T * AC),
    datt = view(4 * T, false)
  compare((k, [o]) => k.attentionDecodeRows(o!, datt, qkv, kc, vc, rows, B, T, AC, NH), [B * AC])
  // rows continuing prefixes: row 0 after 2 positions of prefix row 1, row 1 with no prefix
  const pref = ints([T + 1, 2, 0, 0])
  const Tk = T + 2,
    patt = view(B * NH * T * Tk, false),
    pscratch = view(2 * Tk, false),
    pqkv = view(B * T * 3 * AC)
  compare((k, [o]) => k.attentionForwardPrefixed(o!, patt, qkv, lens, B, T, AC, NH, pqkv, pref, Tk), [B * T * AC])
  compare(
    (k, [d, dp]) => {
      k.attentionForwardPrefixed(view(B * T * AC, false), patt, qkv, lens, B, T, AC, NH, pqkv, pref, Tk)
      k.attentionBackwardPrefixed(d!, dp!, pscratch, ay, qkv, patt, lens, B, T, AC, NH, pqkv, pref, Tk)
    },
    [B * T * 3 * AC, B * T * 3 * AC]
  )
}

/**
 * Max |fast − js| / (1 + |js|) over small ragged calls of every kernel of a fast set against its
 * JS reference (forward and backward); Infinity when the backend does not load (`attach` throws).
 */
const selfCheck = (fast: Kernels, attach: (m: WebAssembly.Memory) => void, label: string): number => {
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
    const ints = (values: number[]) => {
      const v = new Int32Array(memory.buffer, off, values.length)
      off += Math.ceil(values.length / 4) * 16
      v.set(values)
      return v
    }
    attach(memory)
    let worst = 0
    const compare = (run: (k: Kernels, out: Float32Array[]) => void, sizes: number[]) => {
      const a = sizes.map((n) => view(n, false)),
        b = sizes.map((n) => new Float32Array(n))
      run(fast, a)
      run(plainKernels, b)
      for (let k = 0; k < a.length; k++) for (let i = 0; i < a[k]!.length; i++) worst = Math.max(worst, Math.abs(a[k]![i]! - b[k]![i]!) / (1 + Math.abs(b[k]![i]!)))
    }
    const BT = 5,
      C = 7,
      OC = 6
    const inp = view(BT * C),
      wt = view(OC * C),
      bias = view(OC),
      dout = view(BT * OC)
    compare((k, [o]) => k.matmulForward(o!, inp, wt, bias, BT, C, OC), [BT * OC])
    const wtT = view(OC * C, false)
    compare((k, [o]) => k.matmulForward(o!, inp, wt, bias, BT, C, OC, wtT), [BT * OC])
    compare((k, [di, dw, db]) => k.matmulBackward(di!, dw!, db!, dout, inp, wt, BT, C, OC), [BT * C, OC * C, OC])
    compare((k, [o]) => k.residualForward(o!, inp, inp, BT * C), [BT * C])
    compare(
      (k, [p, m, v]) => {
        p!.set(inp)
        k.adamwUpdate(p!, inp, m!, v!, 1e-3, 0.9, 0.999, 1e-8, 0.1, 0.1, 0.001, 0.5)
      },
      [BT * C, BT * C, BT * C]
    )
    compare((k, [o]) => k.geluForward(o!, inp, BT * OC), [BT * OC])
    compare((k, [d]) => k.geluBackward(d!, inp, dout, BT * OC), [BT * OC])
    const lnw = view(C),
      lnb = view(C),
      mean = view(BT, false),
      rstd = view(BT, false)
    compare((k, [o]) => k.layernormForward(o!, mean, rstd, inp, lnw, lnb, BT, C), [BT * C])
    compare(
      (k, [di, dw, db]) => {
        k.layernormForward(view(BT * C, false), mean, rstd, inp, lnw, lnb, BT, C)
        k.layernormBackward(di!, dw!, db!, inp, inp, lnw, mean, rstd, BT, C)
      },
      [BT * C, C, C]
    )
    const HM = 3,
      HV = 7,
      HVp = 8
    const targets = ints([0, 6, 3])
    const z = view(HM * HVp),
      hlp = view(HM, false),
      hen = view(HM, false),
      dl = view(HM),
      de = view(HM)
    compare((k, [pr, lp, en]) => k.headForward(pr!, lp!, en!, z, targets, HM, HV, HVp), [HM * HVp, HM, HM])
    compare(
      (k, [dz]) => {
        const pr = view(HM * HVp, false)
        k.headForward(pr, hlp, hen, z, targets, HM, HV, HVp)
        k.headBackward(dz!, pr, z, hlp, hen, targets, dl, de, HM, HV, HVp)
      },
      [HM * HVp]
    )
    checkAttention({ view, ints, compare })
    return Number.isFinite(worst) ? worst : Infinity
  } catch (e) {
    if (process.env.RAGEN_VERBOSE === "1") console.error(`tinylm ${label} self-check: ${(e as Error).message}`)
    return Infinity
  }
}

export const wasmSelfCheck = (): number => selfCheck(wasmKernels, w.attachMemory, "wasm")

/** The same check for one native build (Infinity when the library does not load). */
export const nativeSelfCheck = (isa: NativeIsa): number =>
  selfCheck(
    nativeKernelsFor(isa),
    (m) => {
      if (!attachNative(m, isa)) throw new Error("native library not loaded")
    },
    `native ${isa}`
  )

/** float32 vs float64 sums over ≤ 7 terms and a 2e-7 exp: differences are ~1e-6; 1e-4 leaves no doubt. */
const SELF_CHECK_TOL = 1e-4

export interface Selection {
  readonly name: KernelsName
  /** The instruction set the kernels run: avx512|avx2|sse2 (native), simd128 (wasm), f64 (js). */
  readonly isa: string
  readonly why: string
}

/**
 * Numeric families (docs/kernels.md "Numeric families"): every build in one family computes the
 * same bits for the same run, whatever the CPU; runs of different families are independent draws.
 * The run's runtime notes name the family (numericFamily); records made before the note existed
 * map through `numericFamilyOf`.
 */
export const NUMERIC_FAMILIES = {
  /** native AVX2 + FMA and AVX-512F: sums along a vector in 8 lanes folded by one tree, the same fused multiply-adds */
  "fma8-v1": "native avx2 and avx512 (8-lane sums, fused multiply-add)",
  /** native SSE2 and wasm simd128: 4-lane sums, no fused multiply-add (portable: wasm runs anywhere) */
  "f32x4-v1": "native sse2 and wasm simd128 (4-lane sums, no fused multiply-add)",
  /** the JS reference: float64 sums; Math.exp/log/tanh are the JS engine's own */
  "js-f64": "js (float64 sums; the JS engine's Math.exp, Math.log, Math.tanh)",
  /** the AVX-512 build before the families (16-lane sums): the old avx512 records */
  "avx512-v0": "native avx512v0 (the AVX-512 build before the families: 16-lane sums)"
} as const
export type NumericFamily = keyof typeof NUMERIC_FAMILIES

const NATIVE_FAMILY: Record<NativeIsa, NumericFamily> = { avx512: "fma8-v1", avx2: "fma8-v1", avx512v0: "avx512-v0", sse2: "f32x4-v1" }

/** The family of a kernel choice (name and isa as in the runtime notes, without "tinylm:"). */
export const numericFamily = (name: KernelsName, isa: string): NumericFamily | undefined => (name === "js" ? "js-f64" : name === "wasm" ? "f32x4-v1" : NATIVE_FAMILY[isa as NativeIsa])

let selected: Selection | undefined
let selectedAsked: KernelsChoice | undefined
let selectedIsaEnv: string | undefined

/** Which native build runs: RAGEN_NATIVE_ISA, else the CPU's best. */
const nativeIsa = (cpuIsa: NativeIsa): NativeIsa => {
  const want = process.env.RAGEN_NATIVE_ISA
  if (want === undefined || want === "") return cpuIsa
  if (!(NATIVE_ISAS as ReadonlyArray<string>).includes(want)) {
    throw new UsageError({
      field: "RAGEN_NATIVE_ISA",
      message: `RAGEN_NATIVE_ISA=${want} is not a build of the native library; use ${CURRENT_NATIVE_ISAS.join(", ")} (or leave it unset for this CPU's best, ${cpuIsa}; avx512v0 re-runs records of the AVX-512 build before the numeric families)`
    })
  }
  if (NATIVE_ISAS.indexOf(want as NativeIsa) < NATIVE_ISAS.indexOf(cpuIsa)) {
    throw new UsageError({ field: "RAGEN_NATIVE_ISA", message: `RAGEN_NATIVE_ISA=${want} but this CPU runs at most ${cpuIsa}; use ${NATIVE_ISAS.slice(NATIVE_ISAS.indexOf(cpuIsa)).join(" or ")}` })
  }
  return want as NativeIsa
}

const decide = (asked: KernelsChoice, source: string): Selection => {
  if (asked === "js") return { name: "js", isa: "f64", why: source }
  if (asked === "native" || asked === "auto") {
    const st = nativeStatus()
    let why = st.ok ? "" : st.why
    if (st.ok) {
      const isa = nativeIsa(st.lib.cpuIsa)
      const err = nativeSelfCheck(isa)
      if (err < SELF_CHECK_TOL) return { name: "native", isa, why: `${source}${asked === "auto" ? ", library loaded" : ""}, self-check passed` }
      why = `its ${isa} build fails the self-check (error ${err})`
    }
    // the one line saying why (once per process: the selection is cached)
    console.error(`tinylm: native kernels unavailable (${why}); using wasm`)
  }
  const err = wasmSelfCheck()
  if (err < SELF_CHECK_TOL) return { name: "wasm", isa: "simd128", why: asked === "wasm" ? source : `${source}, native unavailable` }
  if (asked === "wasm") {
    throw new UsageError({
      field: "RAGEN_KERNELS",
      message: `${source} but the WASM SIMD kernels ${err === Infinity ? "do not load on this runtime" : `fail their self-check (error ${err})`}; use kernels js`
    })
  }
  return { name: "js", isa: "f64", why: `${source}, wasm unavailable or failed its self-check` }
}

/**
 * Pick the kernels (see the header): `option` is the tinylm policy option; env RAGEN_KERNELS
 * overrides it. The same request returns the cached choice; another one switches process-wide.
 */
export const selectKernels = (option: KernelsChoice = "auto"): Selection => {
  const env = process.env.RAGEN_KERNELS
  if (env !== undefined && env !== "" && !(KERNELS_CHOICES as ReadonlyArray<string>).includes(env)) {
    throw new UsageError({
      field: "RAGEN_KERNELS",
      message: `RAGEN_KERNELS=${env} is not a kernel set; use ${KERNELS_CHOICES.join(", ")} (or leave it unset for the tinylm option kernels, default auto)`
    })
  }
  const asked = env !== undefined && env !== "" ? (env as KernelsChoice) : option
  // A new RAGEN_NATIVE_ISA (leaderboard verify re-running on a recorded build) decides again.
  if (selected && selectedAsked === asked && selectedIsaEnv === process.env.RAGEN_NATIVE_ISA) return selected
  const source = env !== undefined && env !== "" ? `RAGEN_KERNELS=${env}` : asked === "auto" ? "auto" : `kernels: ${asked}`
  const s = decide(asked, source)
  selected = s
  selectedAsked = asked
  selectedIsaEnv = process.env.RAGEN_NATIVE_ISA
  useKernels(s.name === "native" ? nativeKernelsFor(s.isa as NativeIsa) : s.name === "wasm" ? wasmKernels : plainKernels)
  noteRuntime("kernels", `tinylm:${s.name}`)
  noteRuntime("kernelsIsa", s.isa)
  noteRuntime("numericFamily", numericFamily(s.name, s.isa) ?? "unknown")
  if (s.name !== "js") kernelThreads() // validates RAGEN_THREADS and notes the count next to the kernels
  if (process.env.RAGEN_VERBOSE === "1") console.error(`tinylm kernels: ${s.name} ${s.isa} (${s.why})`)
  return s
}

/** Called for every model arena: selects the kernels (if nothing has yet) and binds the fast ones to it. */
export const prepareArena = (memory: WebAssembly.Memory): void => {
  const s = selected ?? selectKernels()
  // wasm is attached even under js and native, so that a test can switch with useKernels(wasmKernels) later
  try {
    w.attachMemory(memory)
  } catch {
    // no WebAssembly SIMD here: the wasm kernels fall back to js for this arena
  }
  const st = nativeStatus()
  if (st.ok) attachNative(memory, s.name === "native" ? (s.isa as NativeIsa) : st.lib.cpuIsa)
}

/** Bind every native build this CPU runs to `memory` (tests that compare builds on one arena). */
export const attachAllNative = (memory: WebAssembly.Memory): NativeIsa[] => {
  const st = nativeStatus()
  if (!st.ok) return []
  const runs = NATIVE_ISAS.slice(NATIVE_ISAS.indexOf(st.lib.cpuIsa))
  for (const isa of runs) attachNative(memory, isa)
  return [...runs]
}

// choose at load so the run's runtime info (written before any model exists) names the kernels;
// a bad RAGEN_KERNELS is reported by the first model instead (prepareArena → selectKernels)
try {
  selectKernels()
} catch {
  // rethrown on first use
}
