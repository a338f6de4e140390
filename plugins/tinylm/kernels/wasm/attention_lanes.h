/*
 * The attention kernels whose vector lanes are independent outputs (elements of an output row, of
 * dv, dq, dk rows): the forward's weighted sum of values and the backward's dv, dq and dk updates.
 * attention.c includes this once with LANES_WIDE 0, for the sum vector (vf, VL lanes, names as
 * written) and, on AVX-512 under the 8-lane family, once with LANES_WIDE 1, for the wide vector (vw,
 * 16 lanes, names ending in _w): every element's arithmetic is the same either way, so both give
 * the same bits.
 */
#if LANES_WIDE
#define LV vw
#define LN WL
#define LLD LDW
#define LST STW
#define LSPLAT SPLATW
#define LNAME(name) name##_w
#else
#define LV vf
#define LN VL
#define LLD LD
#define LST ST
#define LSPLAT SPLAT
#define LNAME(name) name
#endif

/*
 * out_a[i .. i + NV·LN) = sum over keys in order of att_a[j] · v_j for the Q queries t0 + a (att rows
 * Tk apart, outputs os apart): query a's keys are the n1 prefix keys, then own keys 0..t0 + a. The
 * keys all share go first for every query, then each query's last a keys: every sum keeps its order,
 * and the Q·NV chains run side by side.
 */
static inline __attribute__((always_inline)) void LNAME(weighted_sum)(float *out, int os, const float *att, int Tk, const float *v1, int s1, int n1,
                                                               const float *v2, int s2, int t0, int i, const int Q, const int NV) {
  LV acc[AQ][2];
  for (int a = 0; a < Q; a++) for (int v = 0; v < NV; v++) acc[a][v] = LSPLAT(0.0f);
  for (int j = 0; j < n1 + t0 + 1; j++) {
    const float *vr = j < n1 ? v1 + j * s1 + i : v2 + (j - n1) * s2 + i;
    LV x[2];
    for (int v = 0; v < NV; v++) x[v] = LLD(vr + v * LN);
    for (int a = 0; a < Q; a++) {
      const LV w = LSPLAT(att[a * Tk + j]);
      for (int v = 0; v < NV; v++) MADD(acc[a][v], w, x[v]);
    }
  }
  for (int a = 1; a < Q; a++) for (int t2 = t0 + 1; t2 <= t0 + a; t2++) {
    const LV w = LSPLAT(att[a * Tk + n1 + t2]);
    for (int v = 0; v < NV; v++) MADD(acc[a][v], w, LLD(v2 + t2 * s2 + i + v * LN));
  }
  for (int a = 0; a < Q; a++) for (int v = 0; v < NV; v++) LST(out + a * os + i + v * LN, acc[a][v]);
}

/* dv += att_a[j]·dout_a (the g_a) for the queries a0 ≤ a < Q of the block, in query order */
static inline __attribute__((always_inline)) void LNAME(dv_key)(float *dv, const float *att, int Tk, int j, LV g[BQ][2], const int a0, const int Q, const int NV) {
  LV x[2];
  for (int v = 0; v < NV; v++) x[v] = LLD(dv + v * LN);
  for (int a = a0; a < Q; a++) {
    const LV aw = LSPLAT(att[a * Tk + j]);
    for (int v = 0; v < NV; v++) x[v] = VADD(x[v], VMUL(aw, g[a][v]));
  }
  for (int v = 0; v < NV; v++) LST(dv + v * LN, x[v]);
}

/*
 * dv_j += att_a[j]·dout_a for every key j and query a of the block, lanes [i, i + NV·LN): each dv_j
 * loaded once, its adds in query order (own key t0 + e is seen from query e on).
 */
static inline __attribute__((always_inline)) void LNAME(dv_lanes)(const float *att, int Tk, const float *d, int ds, float *dv1, int s1, int n1,
                                                           float *dv2, int s2, int t0, int i, const int Q, const int NV) {
  LV g[BQ][2];
  for (int a = 0; a < Q; a++) for (int v = 0; v < NV; v++) g[a][v] = LLD(d + a * ds + i + v * LN);
  for (int j = 0; j < n1 + t0 + 1; j++) LNAME(dv_key)(KEY_ROW(dv1, dv2, j) + i, att, Tk, j, g, 0, Q, NV);
  for (int e = 1; e < Q; e++) LNAME(dv_key)(dv2 + (t0 + e) * s2 + i, att, Tk, n1 + t0 + e, g, e, Q, NV);
}

/* dq_a += dp_a[j]·k and dk += dp_a[j]·q_a for the queries a0 ≤ a < Q (in query order), skipping dp_a[j] = 0 */
static inline __attribute__((always_inline)) void LNAME(dq_dk_key)(const float *k, float *dk, const float *dp, int Tk, int j, LV acc[BQ][2], LV qv[BQ][2], const int a0, const int Q, const int NV) {
  LV kv[2], x[2];
  for (int v = 0; v < NV; v++) kv[v] = LLD(k + v * LN), x[v] = LLD(dk + v * LN);
  for (int a = a0; a < Q; a++) {
    const float dpre = dp[a * Tk + j];
    if (dpre == 0.0f) continue;
    const LV vd = LSPLAT(dpre);
    for (int v = 0; v < NV; v++) {
      acc[a][v] = VADD(acc[a][v], VMUL(vd, kv[v]));
      x[v] = VADD(x[v], VMUL(vd, qv[a][v]));
    }
  }
  for (int v = 0; v < NV; v++) LST(dk + v * LN, x[v]);
}

/*
 * The softmax backward of the block, lanes [i, i + NV·LN): dq_a += dp_a[j]·k_j in key order and
 * dk_j += dp_a[j]·q_a in query order, keys with dp_a[j] = 0 skipped. The dq_a stay in registers (a
 * q column of the gradient is never a dk) and each dk_j is loaded once.
 */
static inline __attribute__((always_inline)) void LNAME(dq_dk_lanes)(float *dq, const float *q, int qs, const float *dp, int Tk, const float *k1, float *dk1, int s1, int n1,
                                                              const float *k2, float *dk2, int s2, int t0, int i, const int Q, const int NV) {
  LV acc[BQ][2], qv[BQ][2];
  for (int a = 0; a < Q; a++) for (int v = 0; v < NV; v++) acc[a][v] = LLD(dq + a * qs + i + v * LN), qv[a][v] = LLD(q + a * qs + i + v * LN);
  for (int j = 0; j < n1 + t0 + 1; j++) LNAME(dq_dk_key)(KEY_ROW(k1, k2, j) + i, KEY_ROW(dk1, dk2, j) + i, dp, Tk, j, acc, qv, 0, Q, NV);
  for (int e = 1; e < Q; e++) LNAME(dq_dk_key)(k2 + (t0 + e) * s2 + i, dk2 + (t0 + e) * s2 + i, dp, Tk, n1 + t0 + e, acc, qv, e, Q, NV);
  for (int a = 0; a < Q; a++) for (int v = 0; v < NV; v++) LST(dq + a * qs + i + v * LN, acc[a][v]);
}

#undef LV
#undef LN
#undef LLD
#undef LST
#undef LSPLAT
#undef LNAME
