/*
 * Causal multi-head attention forward/backward with per-row lengths, f32x4 over the head size.
 * Spec: ../attention.ts (same layout: qkv (B,T,3C), att (B,NH,T,T), out (B,T,C)).
 * `attend` computes one (query, head) against keys/values at a given stride; the batched forward
 * (stride 3C inside qkv) and the sampler's KV-cache decode (stride C) share it, so a sampled
 * token's log-prob equals the teacher-forced score bit for bit.
 */
#include "simd.h"

static inline float dot(const float *a, const float *b, int n4, int n) {
  vf acc = SPLAT(0.0f);
  for (int i = 0; i < n4; i += VL) MADD(acc, LD(a + i), LD(b + i));
  float s = hsum(acc);
  for (int i = n4; i < n; i++) s += a[i] * b[i];
  return s;
}

/* queries per block of the forward's weighted sum of values (each query's sums keep their key order) */
#ifndef AQ
#define AQ 4
#endif
#if AQ > 4
#error "softmax_rows names at most four rows"
#endif

/* the four dot(q, k_l), hs a multiple of VL: each product sum added in hsum's order (hsum4x) */
static inline vf4 dot4(const float *q, const float *k0, const float *k1, const float *k2, const float *k3, int hs) {
  vf a0 = SPLAT(0.0f), a1 = a0, a2 = a0, a3 = a0;
  for (int i = 0; i < hs; i += VL) {
    const vf x = LD(q + i);
    MADD(a0, x, LD(k0 + i));
    MADD(a1, x, LD(k1 + i));
    MADD(a2, x, LD(k2 + i));
    MADD(a3, x, LD(k3 + i));
  }
  return hsum4x(a0, a1, a2, a3);
}

/*
 * out[j] = dot(q, k + j*st) for j < n, with dot's bits: four keys at a time when hs is a multiple of
 * VL (the last block ends at key n − 1 and recomputes a few keys, to the same values; below four
 * keys, key 0 stands in for the missing ones), else one at a time.
 */
static inline void dots(float *out, const float *q, const float *k, int st, int n, int hs) {
  const int hs4 = hs & ~(VL - 1);
  if (hs4 != hs) {
    for (int j = 0; j < n; j++) out[j] = dot(q, k + j * st, hs4, hs);
    return;
  }
  if (n < 4) {
    if (n == 0) return;
    const vf4 d = dot4(q, k, n > 1 ? k + st : k, n > 2 ? k + 2 * st : k, k, hs);
    out[0] = LANE4(d, 0);
    if (n > 1) out[1] = LANE4(d, 1);
    if (n > 2) out[2] = LANE4(d, 2);
    return;
  }
  for (int j = 0;; j += 4) {
    if (j > n - 4) j = n - 4;
    const float *k0 = k + j * st;
    ST4(out + j, dot4(q, k0, k0 + st, k0 + 2 * st, k0 + 3 * st, hs));
    if (j == n - 4) return;
  }
}

#ifndef __wasm__
/*
 * Natively, the dot products of a (row, head) also run with the keys (or values) transposed: kt holds
 * element d of key j at kt[d·kst + j], so that one vector holds WL keys and a multiply-add serves WL
 * dot products at once. Each lane repeats dot()'s arithmetic for its key: VL partial sums, each
 * accumulating the products of elements l, l + VL, … in that order, then folded in hsum's tree. The
 * same bits as dots(), with no shuffles (wasm has no stack for the tile: it keeps dots()).
 */
#define KEYS_T 1
/* the transposed tile's floats (hs · keys rounded up to WL) on the stack; larger heads use dots() */
#define KT_FLOATS 8192

#if WL == 16 || WL == 8
/*
 * A WL × WL block transposed in registers (r[i] lane p ↔ r[p] lane i): at each stage h, rows i and
 * i + h (bit h of i clear) swap their off-diagonal h-wide blocks; after the stages h = WL/2 … 1 every
 * block has been swapped at every scale.
 */
#define TRANSPOSE_W 1
#define T_STAGE(h, L, H)                                   \
  for (int i = 0; i < WL; i++)                             \
    if (!(i & (h))) {                                      \
      const vw a = r[i], b = r[i + (h)];                   \
      r[i] = __builtin_shufflevector(a, b, L);             \
      r[i + (h)] = __builtin_shufflevector(a, b, H);       \
    }
#if WL == 16
#define L8 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define H8 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
#define L4 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27
#define H4 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31
#define L2 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29
#define H2 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31
#define L1 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30
#define H1 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31
#else
#define L4 0, 1, 2, 3, 8, 9, 10, 11
#define H4 4, 5, 6, 7, 12, 13, 14, 15
#define L2 0, 1, 8, 9, 4, 5, 12, 13
#define H2 2, 3, 10, 11, 6, 7, 14, 15
#define L1 0, 8, 2, 10, 4, 12, 6, 14
#define H1 1, 9, 3, 11, 5, 13, 7, 15
#endif
static inline __attribute__((always_inline)) void transpose_block(vw r[WL]) {
#if WL == 16
  T_STAGE(8, L8, H8)
#endif
  T_STAGE(4, L4, H4)
  T_STAGE(2, L2, H2)
  T_STAGE(1, L1, H1)
}
#endif

/* keys j < n1 at stride s1, then n2 at stride s2, into kt (kst ≥ n1 + n2 a multiple of WL; the rest zero) */
static void transpose_keys(float *restrict kt, int kst, const float *k1, int s1, int n1, const float *k2, int s2, int n2, int hs) {
  const int n = n1 + n2;
  int j = 0;
#ifdef TRANSPOSE_W
  if (hs % WL == 0)
    for (; j + WL <= n; j += WL)
      for (int d0 = 0; d0 < hs; d0 += WL) {
        vw r[WL];
        for (int i = 0; i < WL; i++) r[i] = LDW((j + i < n1 ? k1 + (j + i) * s1 : k2 + (j + i - n1) * s2) + d0);
        transpose_block(r);
        for (int i = 0; i < WL; i++) STW(kt + (d0 + i) * kst + j, r[i]);
      }
#endif
  for (int d = 0; d < hs; d++) {
    float *r = kt + d * kst;
    for (int i = j; i < n; i++) r[i] = i < n1 ? k1[i * s1 + d] : k2[(i - n1) * s2 + d];
    for (int i = n; i < kst; i++) r[i] = 0.0f;
  }
}

/* whether a (row, head) of nk keys fits the tile, and the tile's row stride */
static inline int keys_t_stride(int nk, int hs) {
  const int kst = (nk + WL - 1) / WL * WL;
  return hs % VL == 0 && hs <= 64 && hs * kst <= KT_FLOATS ? kst : 0;
}

static inline __attribute__((always_inline)) void dots_t_hs(float *restrict out, const float *restrict q, const float *restrict kt, int kst, int n, const int hs) {
  vw qv[64];
  for (int d = 0; d < hs; d++) qv[d] = SPLATW(q[d]);
  for (int j = 0; j < n; j += WL) {
    vw p[VL];
    for (int l = 0; l < VL; l++) p[l] = SPLATW(0.0f);
    for (int s = 0; s < hs; s += VL)
      for (int l = 0; l < VL; l++) p[l] = p[l] + qv[s + l] * LDW(kt + (s + l) * kst + j);
    for (int w = VL / 2; w >= 4; w /= 2)
      for (int l = 0; l < w; l++) p[l] = p[l] + p[l + w];
    const vw r = (p[0] + p[1]) + (p[2] + p[3]);
    if (j + WL <= n) STW(out + j, r);
    else for (int l = 0; l < n - j; l++) out[j + l] = r[l];
  }
}

/* out[j] = dot(q, key j) for j < n with dot()'s bits, from the transposed tile (hs a multiple of VL, ≤ 64) */
static void dots_t(float *out, const float *q, const float *kt, int kst, int n, int hs) {
  if (hs == 16) dots_t_hs(out, q, kt, kst, n, 16);
  else if (hs == 32) dots_t_hs(out, q, kt, kst, n, 32);
  else if (hs == 8) dots_t_hs(out, q, kt, kst, n, 8);
  else dots_t_hs(out, q, kt, kst, n, hs);
}
#endif

/*
 * The softmax of one attention row of n raw dot products, in three steps (softmax_rows runs each step
 * for all the rows of a block before the next, so that the rows' dependency chains overlap):
 * scale_max: att[j] *= scale, returns the max; exp_sum: att[j] = exp(att[j] − max), returns their
 * sum; normalize: att[j] /= sum (times 1/sum). In rows of at least VL keys the last VL keys are also
 * one vector `last` (taken before the loop rewrites them): the loop and that vector compute the keys
 * they share to the same values, and the tail is added in key order, so every key gets the bits of
 * the one-key-at-a-time loop of rows below VL (sexp is one lane of vexp).
 */
static inline __attribute__((always_inline)) float scale_max(float *att, int n, float scale, vf *last) {
  float max = -3.4e38f;
  if (n < VL) {
    for (int j = 0; j < n; j++) {
      const float s = att[j] * scale;
      att[j] = s;
      if (s > max) max = s;
    }
    return max;
  }
  const vf vs = SPLAT(scale);
  *last = VMUL(LD(att + n - VL), vs);
  /* the max in lanes: only which of two equal maxima (+0, −0) wins can change, and both subtract to the same exp */
  vf vm = VMAXGT(*last, SPLAT(max));
  int j = 0;
#ifdef WIDE_HALVES
  if (n >= WL) {
    const vw vsw = SPLATW(scale);
    vw vmw = SPLATW(max);
    for (; j + WL <= n; j += WL) {
      const vw s = VMUL(LDW(att + j), vsw);
      STW(att + j, s);
      vmw = VMAXGT(s, vmw);
    }
    vm = VMAXGT(VMAXGT(LO(vmw), HI(vmw)), vm);
  }
#endif
  for (; j + VL <= n; j += VL) {
    const vf s = VMUL(LD(att + j), vs);
    ST(att + j, s);
    vm = VMAXGT(s, vm);
  }
  return hmax(vm);
}

static inline __attribute__((always_inline)) float exp_sum(float *att, int n, float max, vf last) {
  float sum = 0.0f;
  if (n < VL) {
    for (int j = 0; j < n; j++) {
      const float e = sexp(att[j] - max);
      att[j] = e;
      sum += e;
    }
    return sum;
  }
  const vf vmax = SPLAT(max), elast = vexp(VSUB(last, vmax));
  vf vsum = SPLAT(0.0f);
  int j = 0;
#ifdef WIDE_HALVES
  /* 16 exps at a time, added 8 at a time in key order */
  const vw vmaxw = SPLATW(max);
  for (; j + WL <= n; j += WL) {
    const vw e = vexpw(VSUB(LDW(att + j), vmaxw));
    STW(att + j, e);
    vsum = VADD(vsum, LO(e));
    vsum = VADD(vsum, HI(e));
  }
#endif
  for (; j + VL <= n; j += VL) {
    const vf e = vexp(VSUB(LD(att + j), vmax));
    ST(att + j, e);
    vsum = VADD(vsum, e);
  }
  ST(att + n - VL, elast);
  sum = hsum(vsum);
  for (; j < n; j++) sum += att[j];
  return sum;
}

static inline void normalize(float *att, int n, float sum) {
  const float inv = 1.0f / sum;
  for (int j = 0; j < n; j++) att[j] *= inv;
}

/*
 * Softmax of Q ≤ 4 score rows in place (row a at att + a·stride, n_a keys), each step for every
 * row before the next so that the rows' chains overlap; each row's arithmetic is scale_max,
 * exp_sum and normalize in key order, as one row alone.
 */
static inline __attribute__((always_inline)) void softmax_block(float *att, int stride, int n0, int n1, int n2, int n3, float scale, const int Q) {
  /* named per row rather than arrays: wasm has no stack for an array that stays in memory */
  vf l0 = SPLAT(0.0f), l1 = l0, l2 = l0, l3 = l0;
  float m0 = 0.0f, m1 = 0.0f, m2 = 0.0f, m3 = 0.0f;
#define ROW(a) att + (a) * stride, n##a
  m0 = scale_max(ROW(0), scale, &l0);
  if (Q > 1) m1 = scale_max(ROW(1), scale, &l1);
  if (Q > 2) m2 = scale_max(ROW(2), scale, &l2);
  if (Q > 3) m3 = scale_max(ROW(3), scale, &l3);
  m0 = exp_sum(ROW(0), m0, l0);
  if (Q > 1) m1 = exp_sum(ROW(1), m1, l1);
  if (Q > 2) m2 = exp_sum(ROW(2), m2, l2);
  if (Q > 3) m3 = exp_sum(ROW(3), m3, l3);
  normalize(ROW(0), m0);
  if (Q > 1) normalize(ROW(1), m1);
  if (Q > 2) normalize(ROW(2), m2);
  if (Q > 3) normalize(ROW(3), m3);
#undef ROW
}

/*
 * The raw dot products of the Q queries t0 + a (rows qs apart) with their n1 + t0 + a + 1 keys (n1 at
 * stride s1, then t0 + a + 1 at stride s2), query a's into out + a·Tk: from the transposed tile kt
 * when there is one (the same bits), else key by key. The forward's q·k and the backward's dout·v.
 */
static inline void score_rows(float *out, int Tk, const float *q, int qs, const float *k1, int s1, int n1,
                               const float *k2, int s2, int t0, int hs, const float *kt, int kst, const int Q) {
  for (int a = 0; a < Q; a++) {
#ifdef KEYS_T
    if (kt) {
      dots_t(out + a * Tk, q + a * qs, kt, kst, n1 + t0 + a + 1, hs);
      continue;
    }
#endif
    dots(out + a * Tk, q + a * qs, k1, s1, n1, hs);
    dots(out + a * Tk + n1, q + a * qs, k2, s2, t0 + a + 1, hs);
  }
}

/*
 * The attention weights of the Q queries t0 + a (q rows qs apart, att rows Tk apart) over n1 + t0 + a + 1
 * keys each (the first n1 at stride s1, then t0 + a + 1 at stride s2), each in one contiguous att row.
 */
static inline __attribute__((always_inline)) void softmax_rows(float *att, int Tk, const float *q, int qs, const float *k1, int s1, int n1,
                                                               const float *k2, int s2, int t0, int hs, float scale, const float *kt, int kst, const int Q) {
  score_rows(att, Tk, q, qs, k1, s1, n1, k2, s2, t0, hs, kt, kst, Q);
  softmax_block(att, Tk, n1 + t0 + 1, n1 + t0 + 2, n1 + t0 + 3, n1 + t0 + 4, scale, Q);
}

/*
 * Queries per block of the backward. Its rows of d(att) live on the stack (natively, for rows of up to
 * BTK keys): wasm has no stack, so it takes one query at a time in the caller's scratch. AVX-512
 * takes 8 (measured 5% faster than 4 at 32 rows × 128 positions): its 16-lane rows of a head of 16
 * leave 4 queries too few independent chains.
 */
#ifdef __wasm__
#define BQ 1
#elif defined(WIDE_HALVES)
#define BQ 8
#else
#define BQ 4
#endif
#define BTK 256

/* a key's row in a backward block: prefix keys j < n1 at stride s1, then own keys at stride s2 */
#define KEY_ROW(x1, x2, j) ((j) < n1 ? (x1) + (j) * s1 : (x2) + ((j) - n1) * s2)

#define LANES_WIDE 0
#include "attention_lanes.h"
#ifdef WIDE_HALVES
#undef LANES_WIDE
#define LANES_WIDE 1
#include "attention_lanes.h"
#endif

/*
 * out_a[0..hs) = softmax_j(q_a·k[j]·scale) · v[j] for the Q queries t0 + a (q rows qs apart, att rows
 * Tk apart, outputs os apart) over n1 + t0 + a + 1 keys: the first n1 from one place (a shared prefix,
 * rows of stride s1), then t0 + a + 1 from another (stride s2). With n1 = 0 it is plain causal
 * attention. Either way each query's arithmetic runs in key order over one contiguous att row, so a row
 * split into prefix + own positions gives the same bits as the concatenated row, and a query's result
 * does not depend on the block it is computed in (Q = 1 for the sampler's decode).
 */
static inline __attribute__((always_inline)) void attend_q(float *out, int os, float *att, int Tk, const float *q, int qs, const float *k1, const float *v1, int s1, int n1,
                                                           const float *k2, const float *v2, int s2, int t0, int hs, float scale, const float *kt, int kst, const int Q) {
  const int hs4 = hs & ~(VL - 1);
  softmax_rows(att, Tk, q, qs, k1, s1, n1, k2, s2, t0, hs, scale, kt, kst, Q);
  int i = 0;
#ifdef WIDE_HALVES
  for (; i + WL <= hs4; i += WL) weighted_sum_w(out, os, att, Tk, v1, s1, n1, v2, s2, t0, i, Q, 1);
#endif
  for (; i + 2 * VL <= hs4; i += 2 * VL) weighted_sum(out, os, att, Tk, v1, s1, n1, v2, s2, t0, i, Q, 2);
  for (; i < hs4; i += VL) weighted_sum(out, os, att, Tk, v1, s1, n1, v2, s2, t0, i, Q, 1);
  for (; i < hs; i++) for (int a = 0; a < Q; a++) {
    const float *w = att + a * Tk, *a2 = w + n1;
    float acc = 0.0f;
    for (int j = 0; j < n1; j++) acc += w[j] * v1[j * s1 + i];
    for (int t2 = 0; t2 <= t0 + a; t2++) acc += a2[t2] * v2[t2 * s2 + i];
    out[a * os + i] = acc;
  }
}

static inline void attend(float *out, float *att, const float *q, const float *k, const float *v, int stride, int t, int hs, float scale) {
  attend_q(out, 0, att, 0, q, 0, k, v, stride, 0, k, v, stride, t, hs, scale, 0, 0, 1);
}

/*
 * Rows of qkv (B,T,3C), each after its prefix when hasPref (see attention_forward_prefixed): the
 * plain forward is this with no prefix.
 */
static void forward_rows(float *out, float *att, const float *qkv, const int *lens, int B, int T, int C, int NH,
                         const float *pqkv, const int *pref, int hasPref, int Tk) {
  const int C3 = 3 * C, hs = C / NH;
  const float scale = 1.0f / __builtin_sqrtf((float)hs);
  float *kt = 0;
  int kst = 0;
#ifdef KEYS_T
  float tile[KT_FLOATS];
#endif
  for (int b = 0; b < B; b++) {
    const int len = lens[b] < T ? lens[b] : T, P = hasPref ? pref[2 * b + 1] : 0;
    const float *base = qkv + b * T * C3, *pbase = hasPref ? pqkv + pref[2 * b] * C3 : base;
    for (int t = len; t < T; t++) for (int i = 0; i < C; i++) out[(b * T + t) * C + i] = 0.0f;
#ifdef KEYS_T
    kst = keys_t_stride(P + len, hs);
    kt = kst ? tile : 0;
#endif
    for (int h = 0; h < NH; h++) {
      /* queries in blocks of AQ (one head's att rows are consecutive) */
      float *o = out + b * T * C + h * hs, *a = att + (b * NH + h) * T * Tk;
      const float *q = base + h * hs, *k1 = pbase + C + h * hs, *v1 = pbase + 2 * C + h * hs, *k2 = base + C + h * hs, *v2 = base + 2 * C + h * hs;
#ifdef KEYS_T
      if (kt) transpose_keys(kt, kst, k1, C3, P, k2, C3, len, hs);
#endif
#define ATTEND_Q(Q) attend_q(o + t * C, C, a + t * Tk, Tk, q + t * C3, C3, k1, v1, C3, P, k2, v2, C3, t, hs, scale, kt, kst, Q)
      int t = 0;
      for (; t + AQ <= len; t += AQ) ATTEND_Q(AQ);
      /* the last 2 or 3 queries in one block too (AQ = 4): measured 5% faster than one by one */
      if (AQ == 4 && len - t == 3) ATTEND_Q(3);
      else if (AQ == 4 && len - t == 2) ATTEND_Q(2);
      else for (; t < len; t++) ATTEND_Q(1);
#undef ATTEND_Q
    }
  }
}

EXPORT(attention_forward)
void attention_forward(float *out, float *att, const float *qkv, const int *lens, int B, int T, int C, int NH) {
  forward_rows(out, att, qkv, lens, B, T, C, NH, qkv, lens, 0, T);
}

/* one decode query (row of qkv at q) against a cache slot: kc/vc point at position 0 of the slot */
EXPORT(attention_decode)
void attention_decode(float *out, float *att, const float *q, const float *kc, const float *vc, int t, int C, int NH) {
  const int hs = C / NH;
  const float scale = 1.0f / __builtin_sqrtf((float)hs);
  for (int h = 0; h < NH; h++) attend(out + h * hs, att, q + h * hs, kc + h * hs, vc + h * hs, C, t, hs, scale);
}

/*
 * Q decode rows of one head (offset ho in a row), stage by stage as softmax_rows (their chains
 * overlap): row a's query at q + a·C3, its slot and position in rows[2a], rows[2a + 1] (keys and
 * values at stride C from that slot's start in kc / vc), its weights in att + a·T, its output at
 * out + a·C. Each row computes what attend does, bit for bit.
 */
static inline __attribute__((always_inline)) void decode_block(float *out, float *att, int T, const float *q, const float *kc, const float *vc, const int *rows,
                                                               int ho, int C, int hs, float scale, const int Q) {
#define KEYS(x, a) ((x) + rows[2 * (a)] * T * C + ho)
  for (int a = 0; a < Q; a++) dots(att + a * T, q + a * 3 * C, KEYS(kc, a), C, rows[2 * a + 1] + 1, hs);
  /* rows past Q are not read: their lengths are 0 */
  softmax_block(att, T, rows[1] + 1, Q > 1 ? rows[3] + 1 : 0, Q > 2 ? rows[5] + 1 : 0, Q > 3 ? rows[7] + 1 : 0, scale, Q);
  const int hs4 = hs & ~(VL - 1);
  for (int a = 0; a < Q; a++) {
    const float *v = KEYS(vc, a), *w = att + a * T;
    const int t = rows[2 * a + 1];
    int i = 0;
#ifdef WIDE_HALVES
    for (; i + WL <= hs4; i += WL) weighted_sum_w(out + a * C, 0, w, 0, v, C, 0, v, C, t, i, 1, 1);
#endif
    for (; i + 2 * VL <= hs4; i += 2 * VL) weighted_sum(out + a * C, 0, w, 0, v, C, 0, v, C, t, i, 1, 2);
    for (; i < hs4; i += VL) weighted_sum(out + a * C, 0, w, 0, v, C, 0, v, C, t, i, 1, 1);
    for (; i < hs; i++) {
      float acc = 0.0f;
      for (int t2 = 0; t2 <= t; t2++) acc += w[t2] * v[t2 * C + i];
      out[a * C + i] = acc;
    }
  }
#undef KEYS
}

/*
 * The sampler's decode step for N rows at once: row j's q, k, v at qkv + j·3C; rows[2j], rows[2j+1]
 * = its cache slot and position. Its k and v go into the caches kc / vc (maxB, T, C) at that slot and
 * position, then it attends over positions 0..pos of its slot; out (N, C). att holds 4 rows of T
 * floats. Each row gets attention_decode's bits, in one call instead of one per row.
 */
EXPORT(attention_decode_rows)
void attention_decode_rows(float *out, float *att, const float *qkv, float *kc, float *vc, const int *rows, int N, int T, int C, int NH) {
  const int hs = C / NH, C3 = 3 * C;
  const float scale = 1.0f / __builtin_sqrtf((float)hs);
  for (int j = 0; j < N; j++) {
    float *k = kc + (rows[2 * j] * T + rows[2 * j + 1]) * C, *v = vc + (rows[2 * j] * T + rows[2 * j + 1]) * C;
    for (int i = 0; i < C; i++) k[i] = qkv[j * C3 + C + i], v[i] = qkv[j * C3 + 2 * C + i];
  }
  for (int j = 0; j < N; j += 4) {
    const int *r = rows + 2 * j;
    for (int h = 0; h < NH; h++) {
      float *o = out + j * C + h * hs;
      const float *q = qkv + j * C3 + h * hs;
      if (N - j >= 4) decode_block(o, att, T, q, kc, vc, r, h * hs, C, hs, scale, 4);
      else for (int a = 0; a < N - j; a++) decode_block(o + a * C, att, T, q + a * C3, kc, vc, r + 2 * a, h * hs, C, hs, scale, 1);
    }
  }
}


/* the lanes past the head's last multiple of VL, one query after another (each entry's adds in query order, then key order) */
static inline void backward_tail(float *dq, const float *q, int qs, const float *att, const float *dp, int Tk, const float *d, int ds, float *dv1, float *dk1, const float *k1,
                                 int s1, int n1, float *dv2, float *dk2, const float *k2, int s2, int t0, int i0, int hs, const int Q) {
  for (int i = i0; i < hs; i++) for (int a = 0; a < Q; a++) for (int j = 0; j < n1 + t0 + a + 1; j++) KEY_ROW(dv1, dv2, j)[i] += att[a * Tk + j] * d[a * ds + i];
  for (int i = i0; i < hs; i++) for (int a = 0; a < Q; a++) for (int j = 0; j < n1 + t0 + a + 1; j++) {
    const float dpre = dp[a * Tk + j];
    if (dpre == 0.0f) continue;
    dq[a * qs + i] += dpre * KEY_ROW(k1, k2, j)[i];
    KEY_ROW(dk1, dk2, j)[i] += dpre * q[a * qs + i];
  }
}

/*
 * Backward of the Q queries t0 + a of one (row, head) (their q, dq, dout and att rows qs, qs, ds and
 * Tk apart; sc holds Q rows of Tk floats): keys in two segments as in attend_q (n1 prefix keys at
 * stride s1 with their gradients dk1/dv1, then t0 + a + 1 own keys at stride s2), each query in key
 * order: d(att)_j = dout·v_j and dsum = Σ d(att)_j·att_j, dv_j += att_j·dout, then the softmax backward
 * into dq and dk_j. Step by step over the block, so that the queries' chains overlap; every gradient
 * entry still takes its adds in query order, then key order, as one query at a time did.
 */
static inline __attribute__((always_inline)) void backward_block(float *dq, const float *q, int qs, const float *att, int Tk, const float *d, int ds, float *sc,
                                                                 const float *k1, const float *v1, float *dk1, float *dv1, int s1, int n1,
                                                                 const float *k2, const float *v2, float *dk2, float *dv2, int s2, int t0, int hs, float scale,
                                                                 const float *vt, int vst, const int Q) {
  const int hs4 = hs & ~(VL - 1);
  float dsum[BQ];
  score_rows(sc, Tk, d, ds, v1, s1, n1, v2, s2, t0, hs, vt, vst, Q);
  /* dsum_a in key order, the queries' chains side by side over the keys they share */
  for (int a = 0; a < Q; a++) dsum[a] = 0.0f;
  for (int j = 0; j < n1 + t0 + 1; j++)
    for (int a = 0; a < Q; a++) dsum[a] += sc[a * Tk + j] * att[a * Tk + j];
  for (int a = 1; a < Q; a++)
    for (int j = n1 + t0 + 1; j < n1 + t0 + a + 1; j++) dsum[a] += sc[a * Tk + j] * att[a * Tk + j];
  int i = 0;
#ifdef WIDE_HALVES
  for (; i + WL <= hs4; i += WL) dv_lanes_w(att, Tk, d, ds, dv1, s1, n1, dv2, s2, t0, i, Q, 1);
#endif
  for (; i + 2 * VL <= hs4; i += 2 * VL) dv_lanes(att, Tk, d, ds, dv1, s1, n1, dv2, s2, t0, i, Q, 2);
  for (; i < hs4; i += VL) dv_lanes(att, Tk, d, ds, dv1, s1, n1, dv2, s2, t0, i, Q, 1);
  for (int a = 0; a < Q; a++) {
    const float *w = att + a * Tk;
    float *g = sc + a * Tk;
    for (int j = 0; j < n1 + t0 + a + 1; j++) g[j] = w[j] * (g[j] - dsum[a]) * scale;
  }
  i = 0;
#ifdef WIDE_HALVES
  for (; i + WL <= hs4; i += WL) dq_dk_lanes_w(dq, q, qs, sc, Tk, k1, dk1, s1, n1, k2, dk2, s2, t0, i, Q, 1);
#endif
  for (; i + 2 * VL <= hs4; i += 2 * VL) dq_dk_lanes(dq, q, qs, sc, Tk, k1, dk1, s1, n1, k2, dk2, s2, t0, i, Q, 2);
  for (; i < hs4; i += VL) dq_dk_lanes(dq, q, qs, sc, Tk, k1, dk1, s1, n1, k2, dk2, s2, t0, i, Q, 1);
  backward_tail(dq, q, qs, att, sc, Tk, d, ds, dv1, dk1, k1, s1, n1, dv2, dk2, k2, s2, t0, hs4, hs, Q);
}

#if BQ == 1
/*
 * wasm: one query at a time, the two passes of the one-query backward fused over the keys (measured
 * faster in wasm than backward_block with Q = 1): the same arithmetic in the same order.
 */
static inline void backward_query(float *dq, const float *q, const float *a, const float *d, float *scratch,
                                  const float *k1, const float *v1, float *dk1, float *dv1, int s1, int n1,
                                  const float *k2, const float *v2, float *dk2, float *dv2, int s2, int t, int hs, float scale) {
  const int hs4 = hs & ~(VL - 1), n = n1 + t + 1;
  float dsum = 0.0f;
  for (int j = 0; j < n; j++) {
    const float *v = KEY_ROW(v1, v2, j);
    float *dv = KEY_ROW(dv1, dv2, j);
    const float w = a[j];
    const vf vw = SPLAT(w);
    vf acc = SPLAT(0.0f);
    int i = 0;
    for (; i < hs4; i += VL) {
      const vf g = LD(d + i);
      MADD(acc, g, LD(v + i));
      ST(dv + i, VADD(LD(dv + i), VMUL(vw, g)));
    }
    float s = hsum(acc);
    for (; i < hs; i++) {
      s += d[i] * v[i];
      dv[i] += w * d[i];
    }
    scratch[j] = s;
    dsum += s * w;
  }
  for (int j = 0; j < n; j++) {
    const float dpre = a[j] * (scratch[j] - dsum) * scale;
    if (dpre == 0.0f) continue;
    const float *k = KEY_ROW(k1, k2, j);
    float *dk = KEY_ROW(dk1, dk2, j);
    const vf vd = SPLAT(dpre);
    int i = 0;
    for (; i < hs4; i += VL) {
      ST(dq + i, VADD(LD(dq + i), VMUL(vd, LD(k + i))));
      ST(dk + i, VADD(LD(dk + i), VMUL(vd, LD(q + i))));
    }
    for (; i < hs; i++) {
      dq[i] += dpre * k[i];
      dk[i] += dpre * q[i];
    }
  }
}
#endif

/* dqkv (B,T,3C) += for the rows' own positions, dpqkv += their prefixes' k and v (when hasPref) */
static void backward_rows(float *dqkv, float *dpqkv, float *scratch, const float *dout, const float *qkv, const float *att, const int *lens,
                          int B, int T, int C, int NH, const float *pqkv, const int *pref, int hasPref, int Tk) {
  const int C3 = 3 * C, hs = C / NH;
  const float scale = 1.0f / __builtin_sqrtf((float)hs);
#if BQ > 1
  float stack[BQ * BTK];
#endif
  float *vt = 0;
  int vst = 0;
#ifdef KEYS_T
  float tile[KT_FLOATS];
#endif
  for (int b = 0; b < B; b++) {
    const int len = lens[b] < T ? lens[b] : T, P = hasPref ? pref[2 * b + 1] : 0;
    const float *base = qkv + b * T * C3, *pbase = hasPref ? pqkv + pref[2 * b] * C3 : base;
    float *dbase = dqkv + b * T * C3, *dpbase = hasPref ? dpqkv + pref[2 * b] * C3 : dbase;
#ifdef KEYS_T
    vst = keys_t_stride(P + len, hs);
    vt = vst ? tile : 0;
#endif
    for (int h = 0; h < NH; h++) {
      const int kh = C + h * hs, vh = 2 * C + h * hs;
      const float *a = att + (b * NH + h) * T * Tk, *g = dout + b * T * C + h * hs;
      int t = 0;
#if BQ > 1
#ifdef KEYS_T
      /* the values transposed, for the dot products dout·v_j */
      if (vt) transpose_keys(vt, vst, pbase + vh, C3, P, base + vh, C3, len, hs);
#endif
#define BACKWARD_Q(Q, sc) backward_block(dbase + t * C3 + h * hs, base + t * C3 + h * hs, C3, a + t * Tk, Tk, g + t * C, C, sc, \
                                         pbase + kh, pbase + vh, dpbase + kh, dpbase + vh, C3, P, base + kh, base + vh, dbase + kh, dbase + vh, C3, t, hs, scale, vt, vst, Q)
      if (Tk <= BTK) {
        for (; t + BQ <= len; t += BQ) BACKWARD_Q(BQ, stack);
      }
      for (; t < len; t++) BACKWARD_Q(1, scratch);
#undef BACKWARD_Q
#else
      for (; t < len; t++)
        backward_query(dbase + t * C3 + h * hs, base + t * C3 + h * hs, a + t * Tk, g + t * C, scratch, pbase + kh, pbase + vh, dpbase + kh, dpbase + vh, C3, P,
                       base + kh, base + vh, dbase + kh, dbase + vh, C3, t, hs, scale);
#endif
    }
  }
}

/* dqkv (B,T,3C) +=; scratch (T) holds one row of d(att) */
EXPORT(attention_backward)
void attention_backward(float *dqkv, float *scratch, const float *dout, const float *qkv, const float *att, const int *lens, int B, int T, int C, int NH) {
  backward_rows(dqkv, dqkv, scratch, dout, qkv, att, lens, B, T, C, NH, qkv, lens, 0, T);
}

/*
 * Rows that continue a shared prefix (spec: ../attention.ts attentionForwardPrefixed). pref holds
 * per row [first prefix position in pqkv, prefix length]; att is (B,NH,T,Tk).
 */
EXPORT(attention_forward_prefixed)
void attention_forward_prefixed(float *out, float *att, const float *qkv, const int *lens, int B, int T, int C, int NH,
                                const float *pqkv, const int *pref, int Tk) {
  forward_rows(out, att, qkv, lens, B, T, C, NH, pqkv, pref, 1, Tk);
}

/* dqkv (B,T,3C) += own positions; dpqkv += the prefix positions' k and v gradients; scratch ≥ Tk */
EXPORT(attention_backward_prefixed)
void attention_backward_prefixed(float *dqkv, float *dpqkv, float *scratch, const float *dout, const float *qkv, const float *att, const int *lens,
                                 int B, int T, int C, int NH, const float *pqkv, const int *pref, int Tk) {
  backward_rows(dqkv, dpqkv, scratch, dout, qkv, att, lens, B, T, C, NH, pqkv, pref, 1, Tk);
}
