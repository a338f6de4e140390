/**
 * The cost of one numeric family (docs/kernels.md "Numeric families"), side by side in one run:
 * every native kernel at the trainer's shapes (tiny preset: d 64, 4 heads, 32 rows × 55 positions,
 * 480 scored positions) under each build of the library this CPU runs — avx512 (fma8-v1: sums in
 * 8 lanes as AVX2), avx512v0 (the AVX-512 build before the families, 16-lane sums, kept in the
 * library for its records), avx2, sse2 — interleaved call by call (each timed call after an untimed
 * one, so every build meets the same warm caches), each kernel's minimum over the rounds (robust
 * to a busy machine), and the sum weighted by the calls of one forward + backward
 * of the 2-layer model. avx512 against avx512v0 is the price of AVX-512 computing AVX2's bits.
 * Per kernel that does arithmetic (matmuls, attention), its GFLOP/s on this CPU's own build and
 * the share of one core's peak (the benchmark calls each kernel on one thread): `--peak-core`,
 * measured by benchmarks/peak-flops.c (default 200 GFLOP/s fp32 = 2 AVX-512 FMA pipes × 16 lanes ×
 * 2 flops × ≈ 3.1 GHz, half of benchmarks/tinylm-vs-torch.ts's 2-core 400; the reference machine
 * measures 211). Counted flops: a matmul 2·rows·in·out forward and twice that backward
 * (dinp and dweight); attention 4·d per causal (query, key) pair forward (the dot product and the
 * weighted sum of values, every head) and 8·d backward; exps, norms and pointwise kernels are not
 * counted (they are bound by memory, not by multiply-adds).
 * --positions T --scored M --vocab V: another shape (benchmarks/tinylm-vs-torch.ts's tiny case is
 * --positions 128 --scored 4096 --vocab 128: every position of 32 rows of 128 scored).
 * Usage: bun benchmarks/native-family-cost.ts [rounds = 30] [--peak-core 200] [--positions 55] [--scored 480] [--vocab 61]
 */
import { loadavg } from "node:os"
import { nativeStatus, type NativeIsa, NATIVE_ISAS } from "../plugins/tinylm/kernels/native/ffi.ts"
import { jsonLine, runtime } from "./_tinybench.ts"

const st = nativeStatus()
if (!st.ok) throw new Error(`the native library does not load here: ${st.why}`)
const lib = st.lib
const isas = NATIVE_ISAS.slice(NATIVE_ISAS.indexOf(lib.cpuIsa)) as NativeIsa[]
const argv = process.argv.slice(2)
const flag = (name: string, d: number): number => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : d)
const rounds = Number(argv.find((a, i) => !a.startsWith("--") && !argv[i - 1]?.startsWith("--")) ?? 30)
const peakCore = flag("--peak-core", 200)

const B = 32,
  T = flag("--positions", 55),
  C = 64,
  NH = 4,
  N = B * T,
  M = flag("--scored", 480),
  V = flag("--vocab", 61),
  Vp = Math.ceil(V / 16) * 16
for (const [name, x, max] of [
  ["--positions", T, 512],
  ["--scored", M, N],
  ["--vocab", V, 4096]
] as const)
  if (!Number.isInteger(x) || x < 1 || x > max) throw new Error(`${name} ${x}: expected an integer in 1..${max}`)
const buf = new SharedArrayBuffer(Math.max(64 << 20, 4 * (12 * N * 4 * C + B * NH * T * T + 4 * M * Vp + 8 * C * C)))
const f = new Float32Array(buf),
  i32 = new Int32Array(buf)
for (let i = 0; i < f.length; i++) f[i] = Math.sin(i * 0.37) * 0.5
let off = 0
/** A byte offset for n floats (64-byte steps). */
const alloc = (n: number): number => {
  const o = off
  off += Math.ceil(n / 16) * 64
  return o
}
const inp = alloc(N * 4 * C),
  w = alloc(4 * C * C),
  bias = alloc(4 * C),
  out = alloc(N * 4 * C),
  wt = alloc(4 * C * C),
  dinp = alloc(N * 4 * C),
  dw = alloc(4 * C * C),
  db = alloc(4 * C),
  dout = alloc(N * 4 * C)
const qkv = alloc(N * 3 * C),
  att = alloc(B * NH * T * T),
  y = alloc(N * C),
  dqkv = alloc(N * 3 * C),
  scratch = alloc(T),
  lens = alloc(B),
  mean = alloc(N),
  rstd = alloc(N)
const z = alloc(M * Vp),
  probs = alloc(M * Vp),
  lp = alloc(M),
  en = alloc(M),
  targets = alloc(M),
  dl = alloc(M),
  de = alloc(M),
  dz = alloc(M * Vp)
for (let b = 0; b < B; b++) i32[lens / 4 + b] = T - (b % 7)
for (let m = 0; m < M; m++) i32[targets / 4 + m] = (m * 7) % V
const base = lib.base(buf)
/** Causal (query, key) pairs over the batch's rows (row b holds T − b mod 7 positions). */
let pairs = 0
for (let b = 0; b < B; b++) pairs += ((T - (b % 7)) * (T - (b % 7) + 1)) / 2
const mm = (k: number, n: number): number => 2 * N * k * n

type K = ReturnType<typeof lib.symbols>
/** name, calls per forward + backward of the 2-layer model, the call, and its counted flops (0: not counted) */
const cases: Array<[string, number, (k: K) => void, number?]> = [
  ["matmul fwd qkv", 2, (k) => k.matmul_forward_t(base, out, inp, w, bias, 1, N, C, 3 * C, wt, 0), mm(C, 3 * C)],
  ["matmul fwd fc", 2, (k) => k.matmul_forward_t(base, out, inp, w, bias, 1, N, C, 4 * C, wt, 0), mm(C, 4 * C)],
  ["matmul fwd attproj", 2, (k) => k.matmul_forward_t(base, out, inp, w, bias, 1, N, C, C, wt, 0), mm(C, C)],
  ["matmul fwd fcproj", 2, (k) => k.matmul_forward_t(base, out, inp, w, bias, 1, N, 4 * C, C, wt, 0), mm(4 * C, C)],
  ["matmul bwd qkv", 2, (k) => k.matmul_backward_part(base, dinp, dw, db, 1, dout, inp, w, N, C, 3 * C, 0, N, 0, 3 * C), 2 * mm(C, 3 * C)],
  ["matmul bwd fc", 2, (k) => k.matmul_backward_part(base, dinp, dw, db, 1, dout, inp, w, N, C, 4 * C, 0, N, 0, 4 * C), 2 * mm(C, 4 * C)],
  ["matmul bwd attproj", 2, (k) => k.matmul_backward_part(base, dinp, dw, db, 1, dout, inp, w, N, C, C, 0, N, 0, C), 2 * mm(C, C)],
  ["matmul bwd fcproj", 2, (k) => k.matmul_backward_part(base, dinp, dw, db, 1, dout, inp, w, N, 4 * C, C, 0, N, 0, C), 2 * mm(4 * C, C)],
  ["attention fwd", 2, (k) => k.attention_forward(base, y, att, qkv, lens, B, T, C, NH), 4 * C * pairs],
  ["attention bwd", 2, (k) => k.attention_backward(base, dqkv, scratch, dout, qkv, att, lens, B, T, C, NH), 8 * C * pairs],
  ["gelu fwd", 2, (k) => k.gelu_forward(base, out, inp, N * 4 * C)],
  ["gelu bwd", 2, (k) => k.gelu_backward(base, dinp, inp, dout, N * 4 * C, 0)],
  ["layernorm fwd", 5, (k) => k.layernorm_forward(base, y, mean, rstd, inp, w, bias, N, C)],
  ["layernorm bwd", 5, (k) => k.layernorm_backward(base, dinp, dw, db, dout, inp, w, mean, rstd, N, C)],
  ["head fwd", 1, (k) => k.head_forward(base, probs, lp, en, z, targets, M, V, Vp)],
  ["head bwd", 1, (k) => k.head_backward(base, dz, probs, z, lp, en, targets, dl, de, M, V, Vp)]
]

const best = new Map<string, number>()
const syms = isas.map((isa) => [isa, lib.symbols(isa)] as const)
for (let r = 0; r < rounds; r++) {
  // the accumulating outputs back to zero now and then, so that they stay finite
  if (r % 5 === 0)
    for (const [o, n] of [
      [dinp, N * 4 * C],
      [dw, 4 * C * C],
      [dqkv, N * 3 * C]
    ] as const)
      f.fill(0, o / 4, o / 4 + n)
  for (const [name, , call] of cases)
    for (const [isa, k] of syms) {
      call(k) // untimed: the same warm caches for every build, whatever ran before
      const t0 = performance.now()
      call(k)
      const us = (performance.now() - t0) * 1000
      const key = `${name}\u0000${isa}`
      best.set(key, Math.min(best.get(key) ?? Infinity, us))
    }
}

console.log(`native kernels at ${B} rows × ${T} positions, ${M} scored of vocabulary ${V}, µs (minimum over ${rounds} interleaved rounds; ${runtime}, load ${loadavg()[0]!.toFixed(1)})`)
const own = isas[0]!
console.log(`| kernel | calls | ${isas.join(" | ")} | ${own} GFLOP/s | share of one core's ${peakCore} GFLOP/s |`)
console.log(`|---|---|${isas.map(() => "---|").join("")}---|---|`)
const total = new Map<NativeIsa, number>()
for (const [name, calls, , flops] of cases) {
  const gflops = flops ? flops / best.get(`${name}\u0000${own}`)! / 1e3 : null
  const rate = gflops === null ? "– | –" : `${gflops.toFixed(1)} | ${((100 * gflops) / peakCore).toFixed(0)}%`
  console.log(`| ${name} | ${calls} | ${isas.map((isa) => best.get(`${name}\u0000${isa}`)!.toFixed(1)).join(" | ")} | ${rate} |`)
  for (const isa of isas) total.set(isa, (total.get(isa) ?? 0) + calls * best.get(`${name}\u0000${isa}`)!)
}
console.log(`| one forward + backward | | ${isas.map((isa) => total.get(isa)!.toFixed(0)).join(" | ")} |`)
if (total.has("avx512") && total.has("avx512v0")) {
  const ratio = total.get("avx512")! / total.get("avx512v0")!
  console.log(`fma8-v1 on AVX-512 (avx512) / the AVX-512 build before the families (avx512v0): ${ratio.toFixed(3)}`)
}
jsonLine("native-family-cost", { rounds, ...Object.fromEntries([...total].map(([isa, us]) => [`${isa}Us`, Math.round(us)])) })
