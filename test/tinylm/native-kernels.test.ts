/**
 * The native kernels (plugins/tinylm/kernels/native/, FFI) against the JS reference, for every
 * build this CPU runs (AVX-512, AVX2 + FMA, SSE2 on this project's machine): forward and backward
 * per kernel on ragged shapes, nothing written outside the outputs, a row's result independent of
 * its batch, and the whole model (finite differences, determinism, sampling = scoring).
 * Skips with a reason where the library cannot load (another OS or CPU); under CI=true that fails.
 */
import { afterAll, describe, expect, test } from "bun:test"
import type { TrainItem } from "../../core/contracts/index.ts"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { type Kernels, kernels, plainKernels, useKernels, wasmKernels } from "../../plugins/tinylm/kernels/dispatch.ts"
import { type NativeIsa, NATIVE_ISAS, nativeStatus } from "../../plugins/tinylm/kernels/native/ffi.ts"
import { attachNative, nativeKernelsFor } from "../../plugins/tinylm/kernels/native/loader.ts"
import type { TinyLMPolicy } from "../../plugins/tinylm/policy.ts"
import { nllLoss } from "../../plugins/tinylm/sft.ts"
import { makeTinyLM, TinyLMOptions } from "../../plugins/tinylm/spec.ts"
import { absDiff, adamwMismatches, kernelArena, mixedLoss, relDiff, residualMismatches, strayWrites, wholeModelFdError } from "./helpers.ts"

// Tolerance as for wasm: native sums in float32 (fused multiply-adds on AVX2/AVX-512, the JS
// reference in float64) with a Cephes exp (rel. error ~2e-7): |native − js| / (1 + |js|) < 1e-4.
const TOL = 1e-4
const restore: Kernels = { ...kernels }
afterAll(() => useKernels(restore))

const st = nativeStatus()
if (!st.ok) {
  if (process.env.CI === "true") throw new Error(`the native kernels do not load under CI=true: ${st.why}`)
  console.log(`skipping the native kernel tests: ${st.why}`)
}
const isas: NativeIsa[] = st.ok ? NATIVE_ISAS.slice(NATIVE_ISAS.indexOf(st.lib.cpuIsa)) : []
const worstSeen: Record<string, number> = {}

for (const isa of isas) {
  const nk = nativeKernelsFor(isa)
  /** Views in one memory bound to this build, filled with N(0, s). */
  const attach = (m: WebAssembly.Memory) => attachNative(m, isa)
  const arena = (sizes: Record<string, number>, rng: Rng, s = 1, ints: Record<string, number> = {}) => kernelArena(sizes, rng, attach, s, ints)
  const check = (name: string, pairs: ReadonlyArray<readonly [Float32Array, Float32Array]>) => {
    const rel = Math.max(...pairs.map(([a, b]) => relDiff(a, b))),
      abs = Math.max(...pairs.map(([a, b]) => absDiff(a, b)))
    console.log(`native ${isa} vs js ${name}: max rel ${rel.toExponential(2)}, max abs ${abs.toExponential(2)}`)
    const kernel = name.split(" ")[0]!
    worstSeen[`${isa} ${kernel}`] = Math.max(worstSeen[`${isa} ${kernel}`] ?? 0, rel)
    expect(rel).toBeLessThan(TOL)
  }

  describe(`native ${isa} kernels against the JS reference`, () => {
    test("writes nothing but its outputs", () => {
      const { stray, changed } = strayWrites(nk, attach, { transposed: true })
      expect(changed).toBeGreaterThan(0) // the kernels ran natively (not the JS fallback on other views)
      expect(stray).toBe(0)
    })

    test("matmul forward (both forms) and backward on ragged shapes; a row's result does not depend on its batch", () => {
      const rng = new Rng(11)
      for (const [BT, C, OC] of [
        [1, 4, 4],
        [3, 5, 7],
        [7, 6, 6],
        [13, 17, 9],
        [9, 64, 192],
        [21, 256, 64],
        [6, 64, 131],
        [50, 64, 256],
        [35, 33, 49]
      ] as const) {
        const a = arena({ inp: BT * C, w: OC * C, b: OC, dout: BT * OC, out: BT * OC, dinp: BT * C, dw: OC * C, db: OC, wt: OC * C, one: OC }, rng)
        const f = a.f32
        if (BT >= 3) f.dout!.fill(0, OC, 2 * OC) // an all-zero row (padding) takes the skip path
        const ref = { out: new Float32Array(BT * OC), dinp: new Float32Array(f.dinp!), dw: new Float32Array(f.dw!), db: new Float32Array(f.db!) }
        nk.matmulForward(f.out!, f.inp!, f.w!, f.b!, BT, C, OC)
        plainKernels.matmulForward(ref.out, f.inp!, f.w!, f.b!, BT, C, OC)
        nk.matmulBackward(f.dinp!, f.dw!, f.db!, f.dout!, f.inp!, f.w!, BT, C, OC)
        plainKernels.matmulBackward(ref.dinp, ref.dw, ref.db, f.dout!, f.inp!, f.w!, BT, C, OC)
        check(`matmul ${BT}x${C}x${OC}`, [
          [f.out!, ref.out],
          [f.dinp!, ref.dinp],
          [f.dw!, ref.dw],
          [f.db!, ref.db]
        ])
        for (const bias of [f.b!, null]) {
          nk.matmulForward(f.out!, f.inp!, f.w!, bias, BT, C, OC, f.wt!)
          plainKernels.matmulForward(ref.out, f.inp!, f.w!, bias, BT, C, OC)
          check(`matmul_forward_t ${BT}x${C}x${OC}${bias ? "" : " (no bias)"}`, [[f.out!, ref.out]])
          // the last row alone, reusing the transposed slot (as the sampler's decode does): bit-equal to its batch row
          const r = BT - 1
          nk.matmulForward(f.one!, f.inp!.subarray(r * C, (r + 1) * C), f.w!, bias, 1, C, OC, f.wt!, true)
          expect(Array.from(f.one!)).toEqual(Array.from(f.out!.subarray(r * OC, (r + 1) * OC)))
        }
      }
    })

    test("attention forward, backward and KV-cache decode with ragged lengths and head sizes", () => {
      const rng = new Rng(12)
      for (const [B, T, C, NH, lens] of [
        [2, 5, 8, 2, [5, 3]],
        [3, 9, 12, 4, [9, 1, 6]],
        [2, 7, 20, 2, [7, 4]],
        [2, 33, 64, 4, [33, 17]],
        [2, 40, 128, 4, [40, 23]]
      ] as const) {
        const b = arena({ qkv: B * T * 3 * C, dout: B * T * C, out: B * T * C, att: B * NH * T * T, dqkv: B * T * 3 * C, scratch: T }, rng, 1, { lens: B })
        const lensJs = Int32Array.from(lens)
        b.i32.lens!.set(lensJs)
        const g = b.f32
        const refOut = new Float32Array(B * T * C),
          refAtt = new Float32Array(B * NH * T * T),
          refD = new Float32Array(g.dqkv!)
        nk.attentionForward(g.out!, g.att!, g.qkv!, b.i32.lens!, B, T, C, NH)
        plainKernels.attentionForward(refOut, refAtt, g.qkv!, lensJs, B, T, C, NH)
        nk.attentionBackward(g.dqkv!, g.scratch!, g.dout!, g.qkv!, g.att!, b.i32.lens!, B, T, C, NH)
        plainKernels.attentionBackward(refD, new Float32Array(T), g.dout!, g.qkv!, refAtt, lensJs, B, T, C, NH)
        check(`attention B${B} T${T} C${C} NH${NH}`, [
          [g.out!, refOut],
          [g.dqkv!, refD]
        ])
        for (let t = lens[1]!; t < T; t++) for (let i = 0; i < C; i++) expect(g.out![(T + t) * C + i]).toBe(0)
        // decode: query t of row 0 against a cache of rows 0..t equals the batched output bit for bit
        const t = lens[0]! - 1
        const e2 = arena({ kc: T * C, vc: T * C, qkv: 3 * C, y: C, att: T }, rng)
        for (let t2 = 0; t2 < T; t2++) {
          e2.f32.kc!.set(g.qkv!.subarray(t2 * 3 * C + C, t2 * 3 * C + 2 * C), t2 * C)
          e2.f32.vc!.set(g.qkv!.subarray(t2 * 3 * C + 2 * C, t2 * 3 * C + 3 * C), t2 * C)
        }
        e2.f32.qkv!.set(g.qkv!.subarray(t * 3 * C, (t + 1) * 3 * C))
        nk.attentionDecode(e2.f32.y!, 0, e2.f32.att!, e2.f32.qkv!, 0, e2.f32.kc!, e2.f32.vc!, 0, t, C, NH)
        expect(Array.from(e2.f32.y!)).toEqual(Array.from(g.out!.subarray(t * C, (t + 1) * C)))
      }
    })

    test("attention of rows continuing shared prefixes, forward and backward", () => {
      const rng = new Rng(18)
      const B = 3,
        T = 6,
        C = 12,
        NH = 3,
        Tk = T + 9
      const P = 4 * T // prefix rows: a qkv of 4 × T positions
      const a = arena({ qkv: B * T * 3 * C, pqkv: P * 3 * C, dout: B * T * C, out: B * T * C, att: B * NH * T * Tk, dqkv: B * T * 3 * C, dpqkv: P * 3 * C, scratch: 2 * Tk }, rng, 1, {
        lens: B,
        pref: 2 * B
      })
      a.i32.lens!.set([6, 4, 5])
      a.i32.pref!.set([0, 9, T, 5, 0, 0]) // rows 0 and 1 after prefixes of 9 and 5 positions, row 2 without
      const f = a.f32
      const lens = Int32Array.from(a.i32.lens!),
        pref = Int32Array.from(a.i32.pref!)
      const refOut = new Float32Array(B * T * C),
        refAtt = new Float32Array(B * NH * T * Tk),
        refD = new Float32Array(f.dqkv!),
        refDp = new Float32Array(f.dpqkv!)
      nk.attentionForwardPrefixed(f.out!, f.att!, f.qkv!, a.i32.lens!, B, T, C, NH, f.pqkv!, a.i32.pref!, Tk)
      plainKernels.attentionForwardPrefixed(refOut, refAtt, f.qkv!, lens, B, T, C, NH, f.pqkv!, pref, Tk)
      nk.attentionBackwardPrefixed(f.dqkv!, f.dpqkv!, f.scratch!, f.dout!, f.qkv!, f.att!, a.i32.lens!, B, T, C, NH, f.pqkv!, a.i32.pref!, Tk)
      plainKernels.attentionBackwardPrefixed(refD, refDp, new Float32Array(2 * Tk), f.dout!, f.qkv!, refAtt, lens, B, T, C, NH, f.pqkv!, pref, Tk)
      check("attention_prefixed B3 T6 C12 NH3", [
        [f.out!, refOut],
        [f.dqkv!, refD],
        [f.dpqkv!, refDp]
      ])
    })

    test("rows continuing a prefix equal attention over the concatenated rows bit for bit (forward, own gradients)", () => {
      for (const [C, NH] of [
        [12, 3],
        [64, 4],
        [40, 2]
      ] as const) {
        const rng = new Rng(19)
        const B = 2,
          Tb = 4,
          Tp = 5,
          Tk = Tp + Tb,
          lens = [4, 3],
          pref = [0, Tp, 0, 0]
        const a = arena({ qkv: B * Tb * 3 * C, pqkv: Tp * 3 * C, dout: B * Tb * C, out: B * Tb * C, att: B * NH * Tb * Tk, dqkv: B * Tb * 3 * C, dpqkv: Tp * 3 * C, scratch: 2 * Tk }, rng, 1, {
          lens: B,
          pref: 2 * B
        })
        a.i32.lens!.set(lens)
        a.i32.pref!.set(pref)
        a.f32.dqkv!.fill(0)
        a.f32.dpqkv!.fill(0)
        const f = a.f32
        nk.attentionForwardPrefixed(f.out!, f.att!, f.qkv!, a.i32.lens!, B, Tb, C, NH, f.pqkv!, a.i32.pref!, Tk)
        nk.attentionBackwardPrefixed(f.dqkv!, f.dpqkv!, f.scratch!, f.dout!, f.qkv!, f.att!, a.i32.lens!, B, Tb, C, NH, f.pqkv!, a.i32.pref!, Tk)
        // the same rows with the prefix copied in front (T = Tk), dout zero on the prefix positions
        const T = Tk,
          r = arena({ cq: B * T * 3 * C, out: B * T * C, att: B * NH * T * T, dout: B * T * C, dq: B * T * 3 * C, scratch: 2 * T }, rng, 1, { lens: B })
        r.f32.cq!.fill(0)
        r.f32.dout!.fill(0)
        r.f32.dq!.fill(0)
        for (let b = 0; b < B; b++) {
          const P = pref[2 * b + 1]!
          r.f32.cq!.set(f.pqkv!.subarray(pref[2 * b]! * 3 * C, (pref[2 * b]! + P) * 3 * C), b * T * 3 * C)
          r.f32.cq!.set(f.qkv!.subarray(b * Tb * 3 * C, (b + 1) * Tb * 3 * C), (b * T + P) * 3 * C)
          r.f32.dout!.set(f.dout!.subarray(b * Tb * C, (b * Tb + lens[b]!) * C), (b * T + P) * C)
          r.i32.lens![b] = P + lens[b]!
        }
        nk.attentionForward(r.f32.out!, r.f32.att!, r.f32.cq!, r.i32.lens!, B, T, C, NH)
        nk.attentionBackward(r.f32.dq!, r.f32.scratch!, r.f32.dout!, r.f32.cq!, r.f32.att!, r.i32.lens!, B, T, C, NH)
        let fwd = 0,
          own = 0
        for (let b = 0; b < B; b++) {
          const P = pref[2 * b + 1]!
          for (let t = 0; t < lens[b]!; t++) {
            for (let c = 0; c < C; c++) fwd = Math.max(fwd, Math.abs(f.out![(b * Tb + t) * C + c]! - r.f32.out![(b * T + P + t) * C + c]!))
            for (let c = 0; c < 3 * C; c++) own = Math.max(own, Math.abs(f.dqkv![(b * Tb + t) * 3 * C + c]! - r.f32.dq![(b * T + P + t) * 3 * C + c]!))
          }
        }
        expect(fwd).toBe(0)
        expect(own).toBe(0)
      }
    })

    test("GELU forward and backward, ragged lengths, saturation", () => {
      const rng = new Rng(13)
      for (const N of [1, 3, 4, 7, 17, 130, 1027]) {
        const a = arena({ x: N, dout: N, y: N, dx: N }, rng, 3)
        const f = a.f32
        const y = new Float32Array(N),
          dx = new Float32Array(f.dx!)
        nk.geluForward(f.y!, f.x!, N)
        plainKernels.geluForward(y, f.x!, N)
        nk.geluBackward(f.dx!, f.x!, f.dout!, N)
        plainKernels.geluBackward(dx, f.x!, f.dout!, N)
        check(`gelu N${N}`, [
          [f.y!, y],
          [f.dx!, dx]
        ])
      }
      const a = arena({ x: 4, y: 4 }, rng)
      a.f32.x!.set([-100, -30, 30, 100])
      nk.geluForward(a.f32.y!, a.f32.x!, 4)
      expect(Array.from(a.f32.y!)).toEqual([-0, -0, 30, 100])
    })

    test("the AdamW update is the JS reference bit for bit", () => {
      expect(adamwMismatches(nk, attach)).toBe(0)
    })

    test("the residual add is the JS reference bit for bit (special values, split across threads)", () => {
      expect(residualMismatches(nk, attach)).toBe(0)
    })

    test("LayerNorm forward and backward, ragged widths", () => {
      const rng = new Rng(16)
      for (const [N, C] of [
        [1, 4],
        [3, 7],
        [5, 64],
        [9, 131],
        [4, 20]
      ] as const) {
        const a = arena({ x: N * C, w: C, b: C, dout: N * C, y: N * C, mean: N, rstd: N, dx: N * C, dw: C, db: C }, rng, 2)
        const f = a.f32
        const y = new Float32Array(N * C),
          mean = new Float32Array(N),
          rstd = new Float32Array(N)
        const dx = new Float32Array(f.dx!),
          dw = new Float32Array(f.dw!),
          db = new Float32Array(f.db!)
        nk.layernormForward(f.y!, f.mean!, f.rstd!, f.x!, f.w!, f.b!, N, C)
        plainKernels.layernormForward(y, mean, rstd, f.x!, f.w!, f.b!, N, C)
        nk.layernormBackward(f.dx!, f.dw!, f.db!, f.dout!, f.x!, f.w!, f.mean!, f.rstd!, N, C)
        plainKernels.layernormBackward(dx, dw, db, f.dout!, f.x!, f.w!, mean, rstd, N, C)
        check(`layernorm N${N} C${C}`, [
          [f.y!, y],
          [f.mean!, mean],
          [f.rstd!, rstd],
          [f.dx!, dx],
          [f.dw!, dw],
          [f.db!, db]
        ])
      }
    })

    test("output head forward and backward, ragged vocabularies, peaked rows, a row without gradient", () => {
      const rng = new Rng(17)
      for (const [M, V, Vp, scale] of [
        [1, 4, 4, 1],
        [3, 7, 8, 3],
        [6, 43, 44, 2],
        [5, 131, 132, 30],
        [4, 128, 128, 1]
      ] as const) {
        const a = arena({ z: M * Vp, p: M * Vp, lp: M, en: M, dl: M, de: M, dz: M * Vp }, rng, 1, { y: M })
        const f = a.f32,
          y = a.i32.y!
        for (let i = 0; i < M * Vp; i++) f.z![i] = rng.normal() * scale
        for (let m = 0; m < M; m++) (y[m] = rng.int(V)), (f.dl![m] = m === 1 ? 0 : rng.normal()), (f.de![m] = m === 1 ? 0 : rng.normal())
        const p = new Float32Array(M * Vp),
          lp = new Float32Array(M),
          en = new Float32Array(M),
          dz = new Float32Array(f.dz!)
        nk.headForward(f.p!, f.lp!, f.en!, f.z!, y, M, V, Vp)
        plainKernels.headForward(p, lp, en, f.z!, y, M, V, Vp)
        nk.headBackward(f.dz!, f.p!, f.z!, f.lp!, f.en!, y, f.dl!, f.de!, M, V, Vp)
        plainKernels.headBackward(dz, p, f.z!, lp, en, y, f.dl!, f.de!, M, V, Vp)
        check(`head M${M} V${V} scale ${scale}`, [
          [f.p!, p],
          [f.lp!, lp],
          [f.en!, en],
          [f.dz!, dz]
        ])
        for (let m = 0; m < M; m++) for (let i = V; i < Vp; i++) expect(f.p![m * Vp + i]).toBe(0)
      }
    })
  })
}

// ---- the whole model under the native kernels (the CPU's best build) ----
const VOCAB = ["a b c d e f g h", "go left right up down", "the cat sat on mat"]
const make = async (seed = 1, o: Record<string, unknown> = {}): Promise<TinyLMPolicy> => {
  const r = decodeSync(TinyLMOptions, { ctx: 32, d: 20, layers: 2, heads: 2, microBatch: 4, ...o })
  if (!r.ok) throw new Error(r.message)
  return makeTinyLM(r.value, { vocabulary: VOCAB, seed })
}
const items = (p: TinyLMPolicy): TrainItem[] => [
  { prompt: "a b c <think>", tokens: p.tokenizer.encode("go left </think> <answer> up </answer>") },
  { prompt: "the cat sat on the mat 12 <think>", tokens: p.tokenizer.encode("d e </think> <answer> down </answer>") },
  { prompt: "h <think>", tokens: p.tokenizer.encode("right 3 </answer>") },
  { prompt: "g f e d c b a <think>", tokens: p.tokenizer.encode("cat </think>") },
  { prompt: "mat <think>", tokens: p.tokenizer.encode("b") }
]

describe.skipIf(isas.length === 0)("the tinylm model under the native kernels", () => {
  const best = isas[0]!
  const nk = () => nativeKernelsFor(best)
  // a model's arena is bound to the CPU's best build (dispatch.ts prepareArena)

  test("whole-model finite-difference check (d 20: head size 10, not a multiple of 4)", async () => {
    useKernels(nk())
    const p = await make(1, { valueTrunkGrad: true })
    for (let i = 0; i < p.model.params.length; i++) p.model.params[i] = p.model.params[i]! * 2
    p.model.p.valuew!.set(p.model.p.lnfw!.map((_, i) => 0.1 * Math.sin(i)))
    const its = items(p)
    p.zeroGrad()
    await p.accumulate(its, mixedLoss)
    const g = new Float32Array(p.model.grads)
    const lossAt = async () => mixedLoss(await p.forward(its)).loss
    const worst = await wholeModelFdError(p.model, g, lossAt, { h: 3e-3, perTensor: 5, floor: 5e-2 })
    console.log(`fd whole model (native ${best}): max rel error ${worst.toExponential(2)}`)
    expect(worst).toBeLessThan(2e-2)
  })

  test("same seed ⇒ bit-identical parameters after N steps; native, wasm and js train to nearby parameters", async () => {
    const train = async (k: Kernels) => {
      useKernels(k)
      const p = await make(3)
      for (let s = 0; s < 4; s++) {
        await p.accumulate(items(p), nllLoss)
        p.step({ lr: 1e-2, maxGradNorm: 1 })
      }
      return new Float32Array(p.model.params)
    }
    const a = await train(nk()),
      b = await train(nk()),
      w = await train(wasmKernels),
      j = await train(plainKernels)
    expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true)
    const dj = absDiff(a, j),
      dw = absDiff(a, w)
    console.log(`native ${best} after 4 AdamW steps: max |Δparam| vs js ${dj.toExponential(2)}, vs wasm ${dw.toExponential(2)}`)
    expect(dj).toBeLessThan(1e-3)
    expect(dw).toBeLessThan(1e-3)
  })

  test("KV-cache sampling log-probs equal the teacher-forced scores", async () => {
    useKernels(nk())
    const p = await make(4, { microBatch: 3 })
    for (let i = 0; i < p.model.params.length; i++) p.model.params[i] = p.model.params[i]! * 10
    const prompts = ["a b c <think>", "the cat sat <think>", "h <think>", "go go go go go left <think>"]
    const cs = await p.sample(prompts, { temperature: 1, topP: 1, minP: 0, maxTokens: 12 }, new Rng(5))
    const sc = await p.score(cs.map((c, i) => ({ prompt: prompts[i]!, continuation: c.tokens })))
    let maxDiff = 0
    for (let i = 0; i < cs.length; i++) for (let k = 0; k < cs[i]!.tokens.length; k++) maxDiff = Math.max(maxDiff, Math.abs(cs[i]!.rawLogprobs[k]! - sc[i]!.logprobs[k]!))
    console.log(`sample vs score (native ${best}): max |Δlogprob| ${maxDiff}`)
    expect(maxDiff).toBeLessThan(1e-5)
  })

  test("worst relative error per kernel and build (summary)", () => {
    for (const [k, v] of Object.entries(worstSeen)) console.log(`  ${k}: ${v.toExponential(2)}`)
    expect(Object.keys(worstSeen).length).toBeGreaterThanOrEqual(6 * isas.length)
  })
})
