/**
 * Numeric families (docs/kernels.md "Numeric families"): the builds of one family compute the
 * same bits. fma8-v1 = native AVX2 and AVX-512 (8-lane sums, fused multiply-adds); f32x4-v1 =
 * native SSE2 and wasm (4-lane sums, no FMA). Checked per kernel on ragged shapes (bit for bit,
 * not within a tolerance) and on whole short training runs (Sokoban PPO from the shipped warm
 * start, each in its own process): metrics.jsonl byte for byte, timing keys aside.
 * A build this CPU cannot run is skipped with the reason printed (CI's machine has AVX-512);
 * under CI=true a native library that does not load is a failure.
 */
import { describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { isTimingMetric } from "../../core/metrics/keys.ts"
import { Rng } from "../../core/rng.ts"
import { type Kernels, NUMERIC_FAMILIES, numericFamily, wasmKernels } from "../../plugins/tinylm/kernels/dispatch.ts"
import { type NativeIsa, NATIVE_ISAS, nativeStatus } from "../../plugins/tinylm/kernels/native/ffi.ts"
import { attachNative, nativeKernelsFor } from "../../plugins/tinylm/kernels/native/loader.ts"
import { attachMemory } from "../../plugins/tinylm/kernels/wasm/loader.ts"
import { kernelArena } from "./helpers.ts"

const ROOT = join(import.meta.dir, "..", "..")
const st = nativeStatus()
if (!st.ok && process.env.CI === "true") throw new Error(`the native kernels do not load under CI=true: ${st.why}`)
const runs = (isa: NativeIsa): boolean => st.ok && NATIVE_ISAS.indexOf(isa) >= NATIVE_ISAS.indexOf(st.lib.cpuIsa)

type Backend = { readonly label: string; readonly k: Kernels; readonly attach: (m: WebAssembly.Memory) => void }
const native = (isa: NativeIsa): Backend => ({ label: `native ${isa}`, k: nativeKernelsFor(isa), attach: (m) => void attachNative(m, isa) })
const wasm: Backend = { label: "wasm", k: wasmKernels, attach: attachMemory }

/** The pairs of builds that must agree bit for bit, with why a pair is skipped here. */
const pairs: Array<{ family: string; a: () => Backend; b: () => Backend; skip: string }> = [
  { family: "fma8-v1", a: () => native("avx2"), b: () => native("avx512"), skip: !st.ok ? st.why : !runs("avx512") ? `this CPU runs at most ${st.lib.cpuIsa}, not AVX-512` : "" },
  { family: "f32x4-v1", a: () => native("sse2"), b: () => wasm, skip: st.ok ? "" : st.why }
]

/**
 * Every kernel, forward and backward, on ragged shapes (sizes that are and are not multiples of
 * 4, 8 and 16, head sizes 3 to 32, padded vocabularies): all outputs, as bytes, per case.
 */
const everyKernel = (be: Backend): Map<string, Uint8Array> => {
  const out = new Map<string, Uint8Array>()
  const keep = (name: string, views: ReadonlyArray<Float32Array>) => views.forEach((v, i) => out.set(`${name} #${i}`, new Uint8Array(v.slice().buffer)))
  const k = be.k
  const rng = new Rng(41)
  for (const [BT, C, OC] of [
    [1, 4, 4],
    [3, 5, 7],
    [13, 17, 9],
    [7, 64, 192],
    [5, 64, 256],
    [25, 23, 77],
    [12, 256, 64],
    [6, 40, 131]
  ] as const) {
    const a = kernelArena({ inp: BT * C, w: OC * C, b: OC, dout: BT * OC, out: BT * OC, out2: BT * OC, wt: OC * C, dinp: BT * C, dw: OC * C, db: OC }, rng, be.attach)
    const f = a.f32
    if (BT >= 3) f.dout!.fill(0, OC, 2 * OC) // an all-zero row of dout (padding) takes the skip path
    k.matmulForward(f.out!, f.inp!, f.w!, f.b!, BT, C, OC)
    k.matmulForward(f.out2!, f.inp!, f.w!, f.b!, BT, C, OC, f.wt!)
    k.matmulBackward(f.dinp!, f.dw!, f.db!, f.dout!, f.inp!, f.w!, BT, C, OC)
    keep(`matmul ${BT}x${C}x${OC}`, [f.out!, f.out2!, f.dinp!, f.dw!, f.db!])
  }
  for (const [B, T, C, NH, lens] of [
    [2, 5, 12, 4, [5, 3]], // head size 3
    [2, 7, 20, 2, [7, 4]], // 10
    [3, 9, 32, 4, [9, 1, 6]], // 8
    [2, 33, 64, 4, [33, 17]], // 16 (the tiny preset's)
    [2, 21, 40, 2, [21, 11]], // 20
    [2, 19, 128, 4, [19, 19]] // 32
  ] as const) {
    const a = kernelArena({ qkv: B * T * 3 * C, dout: B * T * C, y: B * T * C, att: B * NH * T * T, dqkv: B * T * 3 * C, scratch: T }, rng, be.attach, 1, { lens: B })
    a.i32.lens!.set(lens)
    const f = a.f32
    k.attentionForward(f.y!, f.att!, f.qkv!, a.i32.lens!, B, T, C, NH)
    k.attentionBackward(f.dqkv!, f.scratch!, f.dout!, f.qkv!, f.att!, a.i32.lens!, B, T, C, NH)
    keep(`attention B${B} T${T} C${C} NH${NH}`, [f.y!, f.att!, f.dqkv!])
    // prefixed: row 0 after 6 prefix positions, row 1 after none
    const P = 6,
      Tk = T + P
    const p = kernelArena({ qkv: B * T * 3 * C, pqkv: P * 3 * C, dout: B * T * C, y: B * T * C, att: B * NH * T * Tk, dqkv: B * T * 3 * C, dpqkv: P * 3 * C, scratch: 2 * Tk }, rng, be.attach, 1, {
      lens: B,
      pref: 2 * B
    })
    p.i32.lens!.set(lens)
    p.i32.pref!.set([0, P, 0, 0])
    const g = p.f32
    k.attentionForwardPrefixed(g.y!, g.att!, g.qkv!, p.i32.lens!, B, T, C, NH, g.pqkv!, p.i32.pref!, Tk)
    k.attentionBackwardPrefixed(g.dqkv!, g.dpqkv!, g.scratch!, g.dout!, g.qkv!, g.att!, p.i32.lens!, B, T, C, NH, g.pqkv!, p.i32.pref!, Tk)
    keep(`prefixed B${B} T${T} C${C} NH${NH}`, [g.y!, g.att!, g.dqkv!, g.dpqkv!])
    const d = kernelArena({ q: C, kc: T * C, vc: T * C, y: C, att: T }, rng, be.attach)
    k.attentionDecode(d.f32.y!, 0, d.f32.att!, d.f32.q!, 0, d.f32.kc!, d.f32.vc!, 0, T - 1, C, NH)
    keep(`decode T${T} C${C} NH${NH}`, [d.f32.y!, d.f32.att!])
  }
  for (const N of [1, 7, 8, 17, 130, 1027]) {
    const a = kernelArena({ x: N, dout: N, y: N, dx: N }, rng, be.attach, 3)
    a.f32.x![0] = N > 1 ? 40 : -40 // saturated tanh
    k.geluForward(a.f32.y!, a.f32.x!, N)
    k.geluBackward(a.f32.dx!, a.f32.x!, a.f32.dout!, N)
    keep(`gelu N${N}`, [a.f32.y!, a.f32.dx!])
  }
  for (const [N, C] of [
    [1, 4],
    [3, 7],
    [5, 64],
    [9, 131],
    [4, 20],
    [6, 24]
  ] as const) {
    const a = kernelArena({ x: N * C, w: C, b: C, dout: N * C, y: N * C, mean: N, rstd: N, dx: N * C, dw: C, db: C }, rng, be.attach, 2)
    const f = a.f32
    k.layernormForward(f.y!, f.mean!, f.rstd!, f.x!, f.w!, f.b!, N, C)
    k.layernormBackward(f.dx!, f.dw!, f.db!, f.dout!, f.x!, f.w!, f.mean!, f.rstd!, N, C)
    keep(`layernorm N${N} C${C}`, [f.y!, f.mean!, f.rstd!, f.dx!, f.dw!, f.db!])
  }
  for (const [M, V, Vp, scale] of [
    [1, 4, 4, 1],
    [3, 7, 8, 3],
    [6, 43, 44, 2],
    [5, 131, 132, 30],
    [4, 128, 128, 1],
    [3, 24, 24, 5]
  ] as const) {
    const a = kernelArena({ z: M * Vp, p: M * Vp, lp: M, en: M, dl: M, de: M, dz: M * Vp }, rng, be.attach, 1, { y: M })
    const f = a.f32
    for (let i = 0; i < M * Vp; i++) f.z![i] = f.z![i]! * scale
    for (let m = 0; m < M; m++) a.i32.y![m] = (m * 7 + 3) % V
    k.headForward(f.p!, f.lp!, f.en!, f.z!, a.i32.y!, M, V, Vp)
    k.headBackward(f.dz!, f.p!, f.z!, f.lp!, f.en!, a.i32.y!, f.dl!, f.de!, M, V, Vp)
    keep(`head M${M} V${V}`, [f.p!, f.lp!, f.en!, f.dz!])
  }
  return out
}

const firstDifference = (a: Map<string, Uint8Array>, b: Map<string, Uint8Array>): string => {
  for (const [name, x] of a) {
    const y = b.get(name)
    if (!y || !Buffer.from(x).equals(Buffer.from(y))) return name
  }
  return a.size === b.size ? "" : "a different set of outputs"
}

describe("numeric families: the builds of one family give the same bits", () => {
  test("every build's family (dispatch.ts) is a named family", () => {
    for (const isa of NATIVE_ISAS) expect(Object.keys(NUMERIC_FAMILIES)).toContain(numericFamily("native", isa)!)
    expect(numericFamily("native", "avx2")).toBe("fma8-v1")
    expect(numericFamily("native", "avx512")).toBe("fma8-v1")
    expect(numericFamily("native", "sse2")).toBe("f32x4-v1")
    expect(numericFamily("wasm", "simd128")).toBe("f32x4-v1")
    expect(numericFamily("js", "f64")).toBe("js-f64")
  })

  for (const p of pairs) {
    test.skipIf(p.skip !== "")(
      `${p.family}: every kernel bit for bit on ragged shapes`,
      () => {
        const a = p.a(),
          b = p.b()
        const ra = everyKernel(a),
          rb = everyKernel(b)
        const diff = firstDifference(ra, rb)
        console.log(`${p.family}: ${a.label} vs ${b.label}, ${ra.size} outputs: ${diff === "" ? "bit-identical" : `first difference in ${diff}`}`)
        expect(ra.size).toBeGreaterThan(100)
        expect(diff).toBe("")
      },
      60000
    )
    if (p.skip !== "") console.log(`skipping the ${p.family} parity checks: ${p.skip}`)
  }
})

// ---- whole training runs, one process per build ----

/** A short Sokoban PPO run from the shipped warm start; metrics.jsonl lines without timing keys. */
const trained = new Map<string, { lines: string[]; notes: Record<string, string> }>()
const trainRun = (env: Record<string, string>): { lines: string[]; notes: Record<string, string> } => {
  const key = JSON.stringify(env)
  const seen = trained.get(key)
  if (seen) return seen
  const out = mkdtempSync(join(tmpdir(), "parity-"))
  try {
    const args = ["cli.ts", "train", "--env", "sokoban", "--algo", "ppo", "--steps", "3", "--P", "4", "--G", "8", "--lr", "4e-4", "--seed", "2"]
    args.push("--set", "evalEvery=3", "--set", "valSeeds=16", "--set", "diagEvery=3", "--set", "warmStart=sokoban-tiny", "--out", out, "--quiet")
    const r = spawnSync(process.execPath, args, { cwd: ROOT, env: { ...process.env, RAGEN_KERNELS: "", RAGEN_NATIVE_ISA: "", RAGEN_THREADS: "1", ...env }, encoding: "utf8" })
    if (r.status !== 0) throw new Error(`train failed (${r.status}): ${r.stderr}`)
    const dir = readdirSync(out).find((d) => !d.startsWith("."))!
    const lines = readFileSync(join(out, dir, "metrics.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(l) as Record<string, unknown>).filter(([k]) => !isTimingMetric(k)))))
    const notes = (JSON.parse(readFileSync(join(out, dir, "config.json"), "utf8")) as { runtime: { notes: Record<string, string> } }).runtime.notes
    trained.set(key, { lines, notes })
    return { lines, notes }
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

describe("numeric families: whole training runs byte for byte across builds", () => {
  const runsOf: Array<{ family: string; a: Record<string, string>; b: Record<string, string>; skip: string }> = [
    { family: "fma8-v1", a: { RAGEN_NATIVE_ISA: "avx2" }, b: { RAGEN_NATIVE_ISA: "avx512" }, skip: pairs[0]!.skip },
    { family: "f32x4-v1", a: { RAGEN_KERNELS: "native", RAGEN_NATIVE_ISA: "sse2" }, b: { RAGEN_KERNELS: "wasm" }, skip: pairs[1]!.skip }
  ]
  for (const r of runsOf) {
    test.skipIf(r.skip !== "")(
      `${r.family}: Sokoban PPO, 3 steps, metrics.jsonl identical (timing aside) under ${JSON.stringify(r.a)} and ${JSON.stringify(r.b)}`,
      () => {
        const a = trainRun(r.a),
          b = trainRun(r.b)
        expect(a.notes.numericFamily).toBe(r.family)
        expect(b.notes.numericFamily).toBe(r.family)
        expect(a.notes.kernelsIsa).not.toBe(b.notes.kernelsIsa)
        expect(a.lines.length).toBe(4) // steps 0..3
        const i = a.lines.findIndex((l, j) => l !== b.lines[j])
        console.log(
          `${r.family}: ${a.notes.kernels} ${a.notes.kernelsIsa} vs ${b.notes.kernels} ${b.notes.kernelsIsa}: ${i < 0 ? `${a.lines.length} metrics lines identical` : `first difference on line ${i + 1}`}`
        )
        expect(a.lines).toEqual(b.lines)
      },
      300000
    )
  }

  test.skipIf(pairs[0]!.skip !== "")(
    "the comparison can fail: runs of two families (fma8-v1 and f32x4-v1) differ",
    () => {
      const a = trainRun({ RAGEN_NATIVE_ISA: "avx2" }),
        b = trainRun({ RAGEN_KERNELS: "wasm" })
      expect(a.lines).not.toEqual(b.lines)
    },
    300000
  )
})
