import { afterAll, describe, expect, test } from "bun:test"
import { execFileSync, spawnSync } from "node:child_process"
import { join } from "node:path"
import type { TrainItem } from "../../core/contracts/index.ts"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { carveArena } from "../../plugins/tinylm/arena.ts"
import { type Kernels, kernels, plainKernels, selectKernels, useKernels, wasmKernels, wasmSelfCheck } from "../../plugins/tinylm/kernels/dispatch.ts"
import { attachMemory } from "../../plugins/tinylm/kernels/wasm/loader.ts"
import { makeTinyLM, TinyLMOptions } from "../../plugins/tinylm/spec.ts"
import { adamwMismatches, kernelArena, mixedLoss, relDiff, residualMismatches, strayWrites, wholeModelFdError } from "./helpers.ts"
import type { TinyLMPolicy } from "../../plugins/tinylm/policy.ts"
import { nllLoss } from "../../plugins/tinylm/sft.ts"

// Tolerance: wasm sums in float32 (JS in float64) and uses a Cephes exp (rel. error ~2e-7), so a
// value may differ by a few float32 ulps per term; |wasm − js| / (1 + |js|) < 1e-4 on every output.
const TOL = 1e-4
const ROOT = join(import.meta.dir, "..", "..")
const restore: Kernels = { ...kernels }
afterAll(() => useKernels(restore))

/** Views in one attached WebAssembly.Memory, filled with N(0, s). */
const arena = (sizes: Record<string, number>, rng: Rng, s = 1) => kernelArena(sizes, rng, attachMemory, s)
const report = (name: string, e: number) => console.log(`wasm vs js ${name}: max rel diff ${e.toExponential(2)}`)

describe("WASM SIMD kernels against the JS reference", () => {
  test("the embedded module loads, passes its self-check and writes nothing but its outputs (no shadow stack)", () => {
    expect(wasmSelfCheck()).toBeLessThan(TOL)
    // the arena starts at byte 0 of the memory: a kernel that spilled to a C stack would scribble on it
    expect(strayWrites(wasmKernels, attachMemory).stray).toBe(0)
  })

  test("matmul forward and backward on ragged shapes (sizes not divisible by 4)", () => {
    const rng = new Rng(11)
    for (const [BT, C, OC] of [
      [1, 4, 4],
      [3, 5, 7],
      [7, 6, 6],
      [13, 17, 9],
      [9, 64, 192],
      [21, 256, 64],
      [6, 64, 131]
    ] as const) {
      const a = arena({ inp: BT * C, w: OC * C, b: OC, dout: BT * OC, out: BT * OC, dinp: BT * C, dw: OC * C, db: OC }, rng)
      const f = a.f32
      if (BT >= 3) f.dout!.fill(0, OC, 2 * OC) // an all-zero row (padding) takes the skip path
      const ref = { out: new Float32Array(BT * OC), dinp: new Float32Array(f.dinp!), dw: new Float32Array(f.dw!), db: new Float32Array(f.db!) }
      wasmKernels.matmulForward(f.out!, f.inp!, f.w!, f.b!, BT, C, OC)
      plainKernels.matmulForward(ref.out, f.inp!, f.w!, f.b!, BT, C, OC)
      wasmKernels.matmulBackward(f.dinp!, f.dw!, f.db!, f.dout!, f.inp!, f.w!, BT, C, OC)
      plainKernels.matmulBackward(ref.dinp, ref.dw, ref.db, f.dout!, f.inp!, f.w!, BT, C, OC)
      const e = Math.max(relDiff(f.out!, ref.out), relDiff(f.dinp!, ref.dinp), relDiff(f.dw!, ref.dw), relDiff(f.db!, ref.db))
      report(`matmul ${BT}x${C}x${OC}`, e)
      expect(e).toBeLessThan(TOL)
      // without bias too
      wasmKernels.matmulForward(f.out!, f.inp!, f.w!, null, BT, C, OC)
      plainKernels.matmulForward(ref.out, f.inp!, f.w!, null, BT, C, OC)
      expect(relDiff(f.out!, ref.out)).toBeLessThan(TOL)
      // a row's result does not depend on the batch it is in (sampling one row = scoring many)
      if (BT >= 4) {
        const one = arena({ x: C, y: OC }, rng)
        one.f32.x!.set(f.inp!.subarray(2 * C, 3 * C))
        attachMemory(one.memory)
        wasmKernels.matmulForward(one.f32.y!, one.f32.x!, f.w!.slice(), null, 1, C, OC) // weights outside: js fallback
        const batchRow = f.out!.subarray(2 * OC, 3 * OC)
        expect(relDiff(one.f32.y!, batchRow)).toBeLessThan(TOL)
        const w1 = arena({ x: C, w: OC * C, y: OC }, rng)
        w1.f32.x!.set(f.inp!.subarray(2 * C, 3 * C))
        w1.f32.w!.set(f.w!)
        wasmKernels.matmulForward(w1.f32.y!, w1.f32.x!, w1.f32.w!, null, 1, C, OC)
        expect(Array.from(w1.f32.y!)).toEqual(Array.from(batchRow))
      }
    }
  })

  test("broadcast-form matmul forward (transposed-weight slot) on ragged shapes; a row's result does not depend on BT or on reusing the slot", () => {
    const rng = new Rng(15)
    for (const [BT, C, OC] of [
      [1, 4, 4],
      [4, 5, 7],
      [7, 6, 13],
      [11, 64, 192],
      [5, 256, 64],
      [8, 64, 131]
    ] as const) {
      const a = carveArena([
        { name: "inp", size: BT * C },
        { name: "w", size: OC * C },
        { name: "b", size: OC },
        { name: "out", size: BT * OC },
        { name: "one", size: OC },
        { name: "wt", size: OC * C }
      ])
      attachMemory(a.memory)
      const f = a.f32
      for (const k of ["inp", "w", "b"]) for (let i = 0; i < f[k]!.length; i++) f[k]![i] = rng.normal()
      const ref = new Float32Array(BT * OC)
      for (const bias of [f.b!, null]) {
        wasmKernels.matmulForward(f.out!, f.inp!, f.w!, bias, BT, C, OC, f.wt!)
        plainKernels.matmulForward(ref, f.inp!, f.w!, bias, BT, C, OC)
        const e = relDiff(f.out!, ref)
        report(`matmul_forward_t ${BT}x${C}x${OC}${bias ? "" : " (no bias)"}`, e)
        expect(e).toBeLessThan(TOL)
        const r = BT - 1
        // one row, reusing the transposed slot (as the sampler's decode does): bit-equal to its batch row
        wasmKernels.matmulForward(f.one!, f.inp!.subarray(r * C, (r + 1) * C), f.w!, bias, 1, C, OC, f.wt!, true)
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
      [2, 33, 64, 4, [33, 17]]
    ] as const) {
      // every view, lens included, in one attached memory (else the wasm path falls back to js)
      const b = carveArena([
        { name: "qkv", size: B * T * 3 * C },
        { name: "dout", size: B * T * C },
        { name: "out", size: B * T * C },
        { name: "att", size: B * NH * T * T },
        { name: "dqkv", size: B * T * 3 * C },
        { name: "scratch", size: T },
        { name: "lens", size: B, kind: "i32" }
      ])
      attachMemory(b.memory)
      for (const k of ["qkv", "dout", "dqkv"]) for (let i = 0; i < b.f32[k]!.length; i++) b.f32[k]![i] = rng.normal()
      const lensJs = Int32Array.from(lens)
      b.i32.lens!.set(lensJs)
      const g = b.f32
      const refOut = new Float32Array(B * T * C),
        refAtt = new Float32Array(B * NH * T * T),
        refD = new Float32Array(g.dqkv!)
      wasmKernels.attentionForward(g.out!, g.att!, g.qkv!, b.i32.lens!, B, T, C, NH)
      plainKernels.attentionForward(refOut, refAtt, g.qkv!, lensJs, B, T, C, NH)
      wasmKernels.attentionBackward(g.dqkv!, g.scratch!, g.dout!, g.qkv!, g.att!, b.i32.lens!, B, T, C, NH)
      plainKernels.attentionBackward(refD, new Float32Array(T), g.dout!, g.qkv!, refAtt, lensJs, B, T, C, NH)
      const e = Math.max(relDiff(g.out!, refOut), relDiff(g.dqkv!, refD))
      report(`attention B${B} T${T} C${C} NH${NH}`, e)
      expect(e).toBeLessThan(TOL)
      // padded queries give 0 and padded keys get no gradient
      for (let t = lens[1]!; t < T; t++) for (let i = 0; i < C; i++) expect(g.out![(T + t) * C + i]).toBe(0)
      // decode: query t of row 0 against a cache holding rows 0..t of k and v equals the batched output bit for bit
      const t = lens[0]! - 1
      const e2 = carveArena([
        { name: "kc", size: T * C },
        { name: "vc", size: T * C },
        { name: "qkv", size: 3 * C },
        { name: "y", size: C },
        { name: "att", size: T }
      ])
      attachMemory(e2.memory)
      for (let t2 = 0; t2 < T; t2++) {
        e2.f32.kc!.set(g.qkv!.subarray(t2 * 3 * C + C, t2 * 3 * C + 2 * C), t2 * C)
        e2.f32.vc!.set(g.qkv!.subarray(t2 * 3 * C + 2 * C, t2 * 3 * C + 3 * C), t2 * C)
      }
      e2.f32.qkv!.set(g.qkv!.subarray(t * 3 * C, (t + 1) * 3 * C))
      wasmKernels.attentionDecode(e2.f32.y!, 0, e2.f32.att!, e2.f32.qkv!, 0, e2.f32.kc!, e2.f32.vc!, 0, t, C, NH)
      expect(Array.from(e2.f32.y!)).toEqual(Array.from(g.out!.subarray(t * C, (t + 1) * C)))
      const yJs = new Float32Array(C)
      plainKernels.attentionDecode(yJs, 0, new Float32Array(T), e2.f32.qkv!, 0, e2.f32.kc!, e2.f32.vc!, 0, t, C, NH)
      expect(Array.from(yJs)).toEqual(Array.from(refOut.subarray(t * C, (t + 1) * C)))
    }
  })

  test("GELU forward and backward, ragged lengths", () => {
    const rng = new Rng(13)
    for (const N of [1, 3, 4, 7, 130, 1027]) {
      const a = arena({ x: N, dout: N, y: N, dx: N }, rng, 3)
      const f = a.f32
      const y = new Float32Array(N),
        dx = new Float32Array(f.dx!)
      wasmKernels.geluForward(f.y!, f.x!, N)
      plainKernels.geluForward(y, f.x!, N)
      wasmKernels.geluBackward(f.dx!, f.x!, f.dout!, N)
      plainKernels.geluBackward(dx, f.x!, f.dout!, N)
      const e = Math.max(relDiff(f.y!, y), relDiff(f.dx!, dx))
      report(`gelu N${N}`, e)
      expect(e).toBeLessThan(TOL)
    }
    // saturation: large |x| gives x and 0, no NaN
    const a = arena({ x: 4, y: 4 }, rng)
    a.f32.x!.set([-100, -30, 30, 100])
    wasmKernels.geluForward(a.f32.y!, a.f32.x!, 4)
    expect(Array.from(a.f32.y!)).toEqual([-0, -0, 30, 100])
  })

  test("the AdamW update is the JS reference bit for bit", () => {
    expect(adamwMismatches(wasmKernels, attachMemory)).toBe(0)
  })

  test("the residual add is the JS reference bit for bit (special values, split across threads)", () => {
    expect(residualMismatches(wasmKernels, attachMemory)).toBe(0)
  })

  test("LayerNorm forward and backward, ragged widths", () => {
    const rng = new Rng(16)
    for (const [N, C] of [
      [1, 4],
      [3, 7],
      [5, 64],
      [9, 131]
    ] as const) {
      const a = arena({ x: N * C, w: C, b: C, dout: N * C, y: N * C, mean: N, rstd: N, dx: N * C, dw: C, db: C }, rng, 2)
      const f = a.f32
      const y = new Float32Array(N * C),
        mean = new Float32Array(N),
        rstd = new Float32Array(N)
      const dx = new Float32Array(f.dx!),
        dw = new Float32Array(f.dw!),
        db = new Float32Array(f.db!)
      wasmKernels.layernormForward(f.y!, f.mean!, f.rstd!, f.x!, f.w!, f.b!, N, C)
      plainKernels.layernormForward(y, mean, rstd, f.x!, f.w!, f.b!, N, C)
      wasmKernels.layernormBackward(f.dx!, f.dw!, f.db!, f.dout!, f.x!, f.w!, f.mean!, f.rstd!, N, C)
      plainKernels.layernormBackward(dx, dw, db, f.dout!, f.x!, f.w!, mean, rstd, N, C)
      const e = Math.max(relDiff(f.y!, y), relDiff(f.mean!, mean), relDiff(f.rstd!, rstd), relDiff(f.dx!, dx), relDiff(f.dw!, dw), relDiff(f.db!, db))
      report(`layernorm N${N} C${C}`, e)
      expect(e).toBeLessThan(TOL)
    }
  })

  test("output head forward and backward, ragged vocabularies, peaked rows, a row without gradient", () => {
    const rng = new Rng(17)
    for (const [M, V, Vp, scale] of [
      [1, 4, 4, 1],
      [3, 7, 8, 3],
      [6, 43, 44, 2],
      [5, 131, 132, 30]
    ] as const) {
      const a = carveArena([
        { name: "z", size: M * Vp },
        { name: "p", size: M * Vp },
        { name: "lp", size: M },
        { name: "en", size: M },
        { name: "dl", size: M },
        { name: "de", size: M },
        { name: "dz", size: M * Vp },
        { name: "y", size: M, kind: "i32" }
      ])
      attachMemory(a.memory)
      const f = a.f32,
        y = a.i32.y!
      for (let i = 0; i < M * Vp; i++) f.z![i] = rng.normal() * scale // scale 30: near one-hot rows
      for (let m = 0; m < M; m++) (y[m] = rng.int(V)), (f.dl![m] = m === 1 ? 0 : rng.normal()), (f.de![m] = m === 1 ? 0 : rng.normal())
      for (let i = 0; i < M * Vp; i++) f.dz![i] = rng.normal()
      const p = new Float32Array(M * Vp),
        lp = new Float32Array(M),
        en = new Float32Array(M),
        dz = new Float32Array(f.dz!)
      wasmKernels.headForward(f.p!, f.lp!, f.en!, f.z!, y, M, V, Vp)
      plainKernels.headForward(p, lp, en, f.z!, y, M, V, Vp)
      wasmKernels.headBackward(f.dz!, f.p!, f.z!, f.lp!, f.en!, y, f.dl!, f.de!, M, V, Vp)
      plainKernels.headBackward(dz, p, f.z!, lp, en, y, f.dl!, f.de!, M, V, Vp)
      const e = Math.max(relDiff(f.p!, p), relDiff(f.lp!, lp), relDiff(f.en!, en), relDiff(f.dz!, dz))
      report(`head M${M} V${V} scale ${scale}`, e)
      expect(e).toBeLessThan(TOL)
      for (let m = 0; m < M; m++) for (let i = V; i < Vp; i++) expect(f.p![m * Vp + i]).toBe(0)
    }
  })

  test("views outside an attached memory fall back to the JS kernels (same numbers)", () => {
    const rng = new Rng(14)
    const BT = 5,
      C = 6,
      OC = 7
    const inp = Float32Array.from({ length: BT * C }, () => rng.normal()),
      w = Float32Array.from({ length: OC * C }, () => rng.normal())
    const a = new Float32Array(BT * OC),
      b = new Float32Array(BT * OC)
    wasmKernels.matmulForward(a, inp, w, null, BT, C, OC)
    plainKernels.matmulForward(b, inp, w, null, BT, C, OC)
    expect(Array.from(a)).toEqual(Array.from(b))
  })
})

// ---- the whole model under wasm ----
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

describe("the tinylm model under the wasm kernels", () => {
  test("whole-model finite-difference check (d 20: head size 10, not a multiple of 4)", async () => {
    useKernels(wasmKernels)
    const p = await make(1, { valueTrunkGrad: true }) // the full gradient, value loss through the trunk included
    // larger init so that gradients are not tiny; h = 3e-3 keeps the central difference in the linear regime
    for (let i = 0; i < p.model.params.length; i++) p.model.params[i] = p.model.params[i]! * 2
    p.model.p.valuew!.set(p.model.p.lnfw!.map((_, i) => 0.1 * Math.sin(i)))
    const its = items(p)
    p.zeroGrad()
    await p.accumulate(its, mixedLoss)
    const g = new Float32Array(p.model.grads)
    const lossAt = async () => mixedLoss(await p.forward(its)).loss
    // h = 3e-3 keeps the central difference in the linear regime
    const worst = await wholeModelFdError(p.model, g, lossAt, { h: 3e-3, perTensor: 5, floor: 5e-2 })
    console.log(`fd whole model (wasm): max rel error ${worst.toExponential(2)}`)
    expect(worst).toBeLessThan(2e-2)
  })

  test("same seed ⇒ bit-identical parameters after N steps; wasm and js train to nearby parameters", async () => {
    const train = async (k: Kernels) => {
      useKernels(k)
      const p = await make(3)
      for (let s = 0; s < 4; s++) {
        await p.accumulate(items(p), nllLoss)
        p.step({ lr: 1e-2, maxGradNorm: 1 })
      }
      return new Float32Array(p.model.params)
    }
    const a = await train(wasmKernels),
      b = await train(wasmKernels),
      j = await train(plainKernels)
    expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true)
    let d = 0
    for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - j[i]!))
    console.log(`wasm vs js after 4 AdamW steps: max |Δparam| ${d.toExponential(2)}`)
    expect(d).toBeLessThan(1e-3)
  })

  test("KV-cache sampling log-probs equal the teacher-forced scores under wasm", async () => {
    useKernels(wasmKernels)
    const p = await make(4, { microBatch: 3 })
    for (let i = 0; i < p.model.params.length; i++) p.model.params[i] = p.model.params[i]! * 10
    const prompts = ["a b c <think>", "the cat sat <think>", "h <think>", "go go go go go left <think>"]
    const cs = await p.sample(prompts, { temperature: 1, topP: 1, minP: 0, maxTokens: 12 }, new Rng(5))
    const sc = await p.score(cs.map((c, i) => ({ prompt: prompts[i]!, continuation: c.tokens })))
    let maxDiff = 0
    for (let i = 0; i < cs.length; i++) for (let k = 0; k < cs[i]!.tokens.length; k++) maxDiff = Math.max(maxDiff, Math.abs(cs[i]!.rawLogprobs[k]! - sc[i]!.logprobs[k]!))
    console.log(`sample vs score (wasm): max |Δlogprob| ${maxDiff}`)
    expect(maxDiff).toBeLessThan(1e-5)
  })
})

describe("kernel selection and the build", () => {
  const bun = process.execPath
  const probe = (env: Record<string, string>) =>
    spawnSync(
      bun,
      [
        "-e",
        `import("${ROOT}/plugins/tinylm/kernels/dispatch.ts").then(async (d) => { const r = await import("${ROOT}/core/runtime.ts"); try { console.log(JSON.stringify({ sel: d.selectKernels(), notes: r.runtimeInfo().notes })) } catch (e) { console.log(JSON.stringify({ err: e._tag, field: e.field, message: e.message })) } })`
      ],
      { env: { ...process.env, ...env }, encoding: "utf8" }
    )

  test("RAGEN_KERNELS picks js or wasm, rejects other values; the choice and its instruction set land in the runtime info", () => {
    const parse = (env: Record<string, string>) => JSON.parse(probe(env).stdout.trim().split("\n").pop()!)
    expect(parse({ RAGEN_KERNELS: "js" })).toEqual({ sel: { name: "js", isa: "f64", why: "RAGEN_KERNELS=js" }, notes: { kernels: "tinylm:js", kernelsIsa: "f64", numericFamily: "js-f64" } })
    expect(parse({ RAGEN_KERNELS: "wasm" }).sel.name).toBe("wasm")
    expect(parse({ RAGEN_KERNELS: "wasm", RAGEN_THREADS: "1" }).notes).toEqual({ kernels: "tinylm:wasm", kernelsIsa: "simd128", numericFamily: "f32x4-v1", threads: "1" })
    expect(parse({ RAGEN_KERNELS: "wasm", RAGEN_THREADS: "2" }).notes).toEqual({ kernels: "tinylm:wasm", kernelsIsa: "simd128", numericFamily: "f32x4-v1", threads: "2" })
    const bad = parse({ RAGEN_KERNELS: "gpu" })
    expect(bad.err).toBe("UsageError")
    expect(bad.field).toBe("RAGEN_KERNELS")
    expect(bad.message).toContain("use auto, native, wasm, js")
    // the default (auto) is covered in native-selection.test.ts; here: the choice is the one in force
    expect(["js", "wasm", "native"]).toContain(selectKernels().name)
  }, 60000) // five subprocesses: slow on a loaded machine

  test("module.generated.ts matches the C sources (needs clang + lld)", () => {
    const clang = process.env.CLANG ?? "clang"
    try {
      execFileSync(clang, ["--version"], { stdio: "ignore" })
    } catch {
      // .ci/run installs clang and lld: under CI a missing toolchain is a failure, not a skip
      if (process.env.CI === "true") throw new Error(`${clang} not found under CI=true: .ci/run must apt-get install clang lld`)
      console.log(`skipped: ${clang} not found (apt-get install -y clang lld to check the embedded wasm)`)
      return
    }
    const r = spawnSync(bun, [join(ROOT, "plugins/tinylm/kernels/wasm/build.ts"), "--check"], { encoding: "utf8" })
    console.log(r.stdout.trim())
    expect(r.stdout).toContain("embedded wasm matches the C sources")
    expect(r.status).toBe(0)
  }, 60000)
})
