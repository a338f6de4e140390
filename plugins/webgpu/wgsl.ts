/**
 * WGSL compute shaders of the tinylm forward pass (scoring only: no backward). Each one is the
 * twin of a CPU kernel in plugins/tinylm/kernels/ and is validated against it
 * (test/webgpu/parity.test.ts). Every shader sees the same four bindings:
 *   p   (uniform)  its parameters, one 256-byte slot per dispatch (dynamic offset), all u32;
 *   w   (storage, read)        the policy's flat parameter buffer (GPT.params layout);
 *   a   (storage, read_write)  every activation, carved by offsets (engine.ts layout);
 *   ids (storage, read)        tokens, lengths, prefix table, gather map, targets, row ranges.
 * One buffer per role keeps one bind group for every dispatch of a chunk; offsets are in
 * elements. Dispatches larger than 65,535 workgroups fold into y: `lin` rebuilds the index.
 * Legend: N positions (packed segments: shared prefixes, then rows' own tokens, no padding), C channels, OC outputs,
 * NH heads, hs = C/NH, M scored positions, V vocabulary, Vp padded vocabulary.
 */

const BINDINGS = /* wgsl */ `
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> a: array<f32>;
@group(0) @binding(3) var<storage, read> ids: array<i32>;
fn lin(wid: vec3<u32>, nwg: vec3<u32>) -> u32 { return wid.y * nwg.x + wid.x; }
`

/** Threads per workgroup of the element-wise kernels (the host sizes dispatches with it). */
export const WG = 256
/** Threads per workgroup of the row reductions (layernorm). */
export const WG_ROW = 64
/** Output tile edge of the matmul (each of its 16×16 threads computes 4×4 outputs); matmul32: 32 (8×8 threads). */
export const MM_TILE = 64
/** Tile edge of each matmul kernel (docs/decisions.md#issue-29's "tile sizes for d = 64" lever: plan.ts `tile`). */
export const TILE_OF = { matmul: MM_TILE, matmul32: 32 } as const
/** Largest head size the attention kernel keeps in registers. */
export const MAX_HEAD = 64

const ENTRY = /* wgsl */ `@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32`

/** Parameter field order per kernel; the host writes the same order (engine.ts `params`). */
export const FIELDS = {
  encoder: ["n", "c", "wte", "wpe", "last", "out", "tok", "seg", "sstart", "sp"],
  layernorm: ["rows", "c", "inp", "out", "wt", "bs", "map", "usemap"],
  matmul: ["m", "k", "n", "inp", "out", "wt", "bias", "hasbias", "epi", "ln", "lnw", "lnb"],
  matmul32: ["m", "k", "n", "inp", "out", "wt", "bias", "hasbias", "epi", "ln", "lnw", "lnb"],
  attention: ["total", "c", "nh", "qkv", "out", "seg", "sstart", "sp0", "sp"],
  attention16: ["total", "c", "nh", "qkv", "out", "seg", "sstart", "sp0", "sp"],
  gelu: ["n", "x"],
  residual: ["n", "out", "x", "y"],
  head: ["m", "v", "vp", "logits", "lp", "tgt", "ent"],
  reduce: ["rows", "lp", "start", "scored", "total", "out"],
  value: ["m", "c", "inp", "wt", "bs", "out"]
} as const
export type KernelName = keyof typeof FIELDS

const struct = (k: KernelName) => `struct P { ${FIELDS[k].map((f) => `${f}: u32`).join(", ")} }`

/**
 * encoderForward: out (N,C) = wte[token] + wpe[position]. Positions are packed segments (a shared
 * prefix, or a row's own tokens after its prefix of sp[s] positions): position n belongs to
 * segment seg[n], which starts at sstart[s]; its absolute position is sp[s] + (n − sstart[s]).
 */
const encoder = /* wgsl */ `${struct("encoder")}${BINDINGS}
@compute @workgroup_size(${WG}) fn main(${ENTRY}) {
  let i = lin(wid, nwg) * ${WG}u + li;
  if (i >= p.n * p.c) { return; }
  let n = i / p.c;
  let ch = i % p.c;
  let s = u32(ids[p.seg + n]);
  let pos = min(u32(ids[p.sp + s]) + n - u32(ids[p.sstart + s]), p.last);
  let tok = u32(ids[p.tok + n]);
  a[p.out + i] = w[p.wte + tok * p.c + ch] + w[p.wpe + pos * p.c + ch];
}`

/**
 * layernormForward (eps 1e-5), one workgroup per row, two-pass mean then variance as the CPU
 * twin. With usemap, output row r normalises input row ids[map + r] (the final LayerNorm runs
 * only at the gathered positions: the head needs nothing else).
 */
const layernorm = /* wgsl */ `${struct("layernorm")}${BINDINGS}
var<workgroup> red: array<f32, ${WG_ROW}>;
@compute @workgroup_size(${WG_ROW}) fn main(${ENTRY}) {
  let r = lin(wid, nwg);
  if (r >= p.rows) { return; }
  var src = r;
  if (p.usemap != 0u) { src = u32(ids[p.map + r]); }
  let x = p.inp + src * p.c;
  let o = p.out + r * p.c;
  var s = 0.0;
  for (var i = li; i < p.c; i += ${WG_ROW}u) { s += a[x + i]; }
  red[li] = s;
  workgroupBarrier();
  for (var k = ${WG_ROW / 2}u; k > 0u; k >>= 1u) { if (li < k) { red[li] += red[li + k]; } workgroupBarrier(); }
  let m = red[0] / f32(p.c);
  workgroupBarrier();
  var v = 0.0;
  for (var i = li; i < p.c; i += ${WG_ROW}u) { let d = a[x + i] - m; v += d * d; }
  red[li] = v;
  workgroupBarrier();
  for (var k = ${WG_ROW / 2}u; k > 0u; k >>= 1u) { if (li < k) { red[li] += red[li + k]; } workgroupBarrier(); }
  let rs = inverseSqrt(red[0] / f32(p.c) + 1e-5);
  for (var i = li; i < p.c; i += ${WG_ROW}u) { a[o + i] = (a[x + i] - m) * rs * w[p.wt + i] + w[p.bs + i]; }
}`

/**
 * matmulForward: out (m,n) = inp (m,k) · W (n,k)^T + bias (n), llm.c layout. A 64×64 output
 * tile per workgroup of 16×16 threads, 4×4 outputs per thread in registers, k in steps of 16
 * through workgroup memory (the register-blocked tiling of Volkov & Demmel 2008, as in most
 * WebGPU matmul examples). Tiles are stored k-major so a thread's 4 rows are adjacent.
 * Fusions (plan.ts's `Fuse` lists), each the twin of the separate kernel it replaces:
 *   ln = 1   the rows of inp are LayerNormed on load (k = C): the workgroup first takes each of
 *            its 64 rows' mean and then variance (two passes, as layernorm), 4 threads per row;
 *   epi = 1  GELU (tanh form, the gelu kernel's clamp) on the result;
 *   epi = 2  the result is added to out (the residual; out is the residual stream, not an input).
 */
const matmulShader = (T: number, name: KernelName): string => {
  const S = T / 4 // threads per edge: S × S threads, 4 × 4 outputs each
  const R = (S * S) / T // threads per row in the LayerNorm prologue
  return /* wgsl */ `${struct(name)}${BINDINGS}
var<workgroup> As: array<f32, ${T * 16}>;
var<workgroup> Bs: array<f32, ${T * 16}>;
var<workgroup> part: array<f32, ${S * S}>;
var<workgroup> mu: array<f32, ${T}>;
var<workgroup> rsd: array<f32, ${T}>;
@compute @workgroup_size(${S}, ${S}) fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let row0 = wid.y * ${T}u;
  let col0 = wid.x * ${T}u;
  let tid = lid.y * ${S}u + lid.x;
  if (p.ln != 0u) {
    let rr = tid / ${R}u;
    let q = tid % ${R}u;
    let row = row0 + rr;
    var s = 0.0;
    if (row < p.m) { for (var i = q; i < p.k; i += ${R}u) { s += a[p.inp + row * p.k + i]; } }
    part[tid] = s;
    workgroupBarrier();
    if (q == 0u) { var t = 0.0; for (var j = 0u; j < ${R}u; j++) { t += part[tid + j]; } mu[rr] = t / f32(p.k); }
    workgroupBarrier();
    let mean = mu[rr];
    var v = 0.0;
    if (row < p.m) { for (var i = q; i < p.k; i += ${R}u) { let d = a[p.inp + row * p.k + i] - mean; v += d * d; } }
    part[tid] = v;
    workgroupBarrier();
    if (q == 0u) { var t = 0.0; for (var j = 0u; j < ${R}u; j++) { t += part[tid + j]; } rsd[rr] = inverseSqrt(t / f32(p.k) + 1e-5); }
    workgroupBarrier();
  }
  var acc: array<f32, 16>;
  for (var k0 = 0u; k0 < p.k; k0 += 16u) {
    for (var e = 0u; e < ${(T * 16) / (S * S)}u; e++) {
      let f = tid + e * ${S * S}u;
      let r = f / 16u;
      let kk = f % 16u;
      let gk = k0 + kk;
      var av = 0.0;
      if (row0 + r < p.m && gk < p.k) {
        av = a[p.inp + (row0 + r) * p.k + gk];
        if (p.ln != 0u) { av = (av - mu[r]) * rsd[r] * w[p.lnw + gk] + w[p.lnb + gk]; }
      }
      As[kk * ${T}u + r] = av;
      var bv = 0.0;
      if (col0 + r < p.n && gk < p.k) { bv = w[p.wt + (col0 + r) * p.k + gk]; }
      Bs[kk * ${T}u + r] = bv;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk++) {
      let ab = kk * ${T}u + lid.y * 4u;
      let bb = kk * ${T}u + lid.x * 4u;
      let a0 = As[ab]; let a1 = As[ab + 1u]; let a2 = As[ab + 2u]; let a3 = As[ab + 3u];
      let b0 = Bs[bb]; let b1 = Bs[bb + 1u]; let b2 = Bs[bb + 2u]; let b3 = Bs[bb + 3u];
      acc[0] += a0 * b0; acc[1] += a0 * b1; acc[2] += a0 * b2; acc[3] += a0 * b3;
      acc[4] += a1 * b0; acc[5] += a1 * b1; acc[6] += a1 * b2; acc[7] += a1 * b3;
      acc[8] += a2 * b0; acc[9] += a2 * b1; acc[10] += a2 * b2; acc[11] += a2 * b3;
      acc[12] += a3 * b0; acc[13] += a3 * b1; acc[14] += a3 * b2; acc[15] += a3 * b3;
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i++) {
    let r = row0 + lid.y * 4u + i;
    if (r >= p.m) { continue; }
    for (var j = 0u; j < 4u; j++) {
      let c = col0 + lid.x * 4u + j;
      if (c >= p.n) { continue; }
      var x = acc[i * 4u + j];
      if (p.hasbias != 0u) { x += w[p.bias + c]; }
      let o = p.out + r * p.n + c;
      if (p.epi == 1u) {
        let u = clamp(0.7978845608028654 * (x + 0.044715 * x * x * x), -15.0, 15.0);
        x = 0.5 * x * (1.0 + tanh(u));
      } else if (p.epi == 2u) {
        x = a[o] + x;
      }
      a[o] = x;
    }
  }
}`
}
const matmul = matmulShader(MM_TILE, "matmul")
const matmul32 = matmulShader(32, "matmul32")

/**
 * attentionForwardPrefixed on packed segments, one thread per (position, head): position t of
 * segment s attends to the sp[s] positions of its prefix (starting at sp0[s]; none for a prefix
 * segment itself) and then to its own positions 0..t, as the CPU's prefixed kernel does. One
 * pass with the running max and sum of the online softmax (Milakov & Gimelshein 2018): the
 * same weights as the CPU's max-then-exp, in another order.
 */
const attentionShader = (H: number, name: KernelName): string => /* wgsl */ `${struct(name)}${BINDINGS}
@compute @workgroup_size(${WG}) fn main(${ENTRY}) {
  let i = lin(wid, nwg) * ${WG}u + li;
  if (i >= p.total * p.nh) { return; }
  let n = i / p.nh;
  let h = i % p.nh;
  let hs = p.c / p.nh;
  let c3 = 3u * p.c;
  let s = u32(ids[p.seg + n]);
  let own = u32(ids[p.sstart + s]);
  let t = n - own;
  let np = u32(ids[p.sp + s]);
  let p0 = u32(ids[p.sp0 + s]);
  let scale = inverseSqrt(f32(hs));
  var q: array<f32, ${H}>;
  var acc: array<f32, ${H}>;
  let qb = p.qkv + n * c3 + h * hs;
  for (var d = 0u; d < hs; d++) { q[d] = a[qb + d]; acc[d] = 0.0; }
  var mx = -3.0e38;
  var l = 0.0;
  let cnt = np + t + 1u;
  for (var j = 0u; j < cnt; j++) {
    var kp = own + j - np;
    if (j < np) { kp = p0 + j; }
    let kb = p.qkv + kp * c3 + p.c + h * hs;
    var dot = 0.0;
    for (var d = 0u; d < hs; d++) { dot += q[d] * a[kb + d]; }
    let sc = dot * scale;
    let mn = max(mx, sc);
    let corr = exp(mx - mn);
    let e = exp(sc - mn);
    l = l * corr + e;
    let vb = kb + p.c;
    for (var d = 0u; d < hs; d++) { acc[d] = acc[d] * corr + e * a[vb + d]; }
    mx = mn;
  }
  let inv = 1.0 / l;
  let o = p.out + n * p.c + h * hs;
  for (var d = 0u; d < hs; d++) { a[o + d] = acc[d] * inv; }
}`
const attention = attentionShader(MAX_HEAD, "attention")
/** The same with registers for a head size ≤ 16 (d = 64, 4 heads): a quarter of the per-thread arrays. */
const attention16 = attentionShader(16, "attention16")

/**
 * geluForward (tanh form) in place. tanh's argument is clamped to ±15 (tanh is ±1 in f32
 * there) because some drivers build tanh from exp and return NaN for large inputs.
 */
const gelu = /* wgsl */ `${struct("gelu")}${BINDINGS}
@compute @workgroup_size(${WG}) fn main(${ENTRY}) {
  let i = lin(wid, nwg) * ${WG}u + li;
  if (i >= p.n) { return; }
  let x = a[p.x + i];
  let u = clamp(0.7978845608028654 * (x + 0.044715 * x * x * x), -15.0, 15.0);
  a[p.x + i] = 0.5 * x * (1.0 + tanh(u));
}`

/** residualForward: out = x + y (out may be x). */
const residual = /* wgsl */ `${struct("residual")}${BINDINGS}
@compute @workgroup_size(${WG}) fn main(${ENTRY}) {
  let i = lin(wid, nwg) * ${WG}u + li;
  if (i >= p.n) { return; }
  a[p.out + i] = a[p.x + i] + a[p.y + i];
}`

/**
 * headForward without the probabilities: per gathered position, log-softmax over the V real
 * entries (max, then Σ exp and Σ exp·z in one pass; one workgroup per row), the target's
 * log-prob and the entropy lse − Σ p z (clamped at 0 as the CPU twin).
 */
const head = /* wgsl */ `${struct("head")}${BINDINGS}
var<workgroup> red: array<f32, ${WG}>;
var<workgroup> red2: array<f32, ${WG}>;
@compute @workgroup_size(${WG}) fn main(${ENTRY}) {
  let r = lin(wid, nwg);
  if (r >= p.m) { return; }
  let z = p.logits + r * p.vp;
  var mx = -3.0e38;
  for (var i = li; i < p.v; i += ${WG}u) { mx = max(mx, a[z + i]); }
  red[li] = mx;
  workgroupBarrier();
  for (var k = ${WG / 2}u; k > 0u; k >>= 1u) { if (li < k) { red[li] = max(red[li], red[li + k]); } workgroupBarrier(); }
  let m = red[0];
  workgroupBarrier();
  var s = 0.0;
  var sz = 0.0;
  for (var i = li; i < p.v; i += ${WG}u) { let e = exp(a[z + i] - m); s += e; sz += e * a[z + i]; }
  red[li] = s;
  red2[li] = sz;
  workgroupBarrier();
  for (var k = ${WG / 2}u; k > 0u; k >>= 1u) { if (li < k) { red[li] += red[li + k]; red2[li] += red2[li + k]; } workgroupBarrier(); }
  if (li == 0u) {
    let lse = m + log(red[0]);
    a[p.lp + r] = a[z + u32(ids[p.tgt + r])] - lse;
    a[p.ent + r] = max(0.0, lse - red2[0] / red[0]);
  }
}`

/** valueForward: per gathered position v = h · valuew + valueb (the PPO critic's head). */
const value = /* wgsl */ `${struct("value")}${BINDINGS}
@compute @workgroup_size(${WG}) fn main(${ENTRY}) {
  let r = lin(wid, nwg) * ${WG}u + li;
  if (r >= p.m) { return; }
  var s = 0.0;
  for (var i = 0u; i < p.c; i++) { s += a[p.inp + r * p.c + i] * w[p.wt + i]; }
  a[p.out + r] = s + w[p.bs];
}`

/**
 * Per scored row: the sum of its token log-probs and their mean over its whole continuation
 * (the CPU scorer divides by the continuation's length, tokens past ctx count as 0; empty: 0).
 */
const reduce = /* wgsl */ `${struct("reduce")}${BINDINGS}
@compute @workgroup_size(${WG}) fn main(${ENTRY}) {
  let i = lin(wid, nwg) * ${WG}u + li;
  if (i >= p.rows) { return; }
  let st = u32(ids[p.start + i]);
  let k = u32(ids[p.scored + i]);
  var s = 0.0;
  for (var j = 0u; j < k; j++) { s += a[p.lp + st + j]; }
  let tot = ids[p.total + i];
  a[p.out + 2u * i] = s;
  var mean = 0.0;
  if (tot > 0) { mean = s / f32(tot); }
  a[p.out + 2u * i + 1u] = mean;
}`

export const SHADERS: Record<KernelName, string> = { encoder, layernorm, matmul, matmul32, attention, attention16, gelu, residual, head, reduce, value }
