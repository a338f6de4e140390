/*
 * GELU (tanh approximation, GPT-2; Hendrycks & Gimpel 2016) forward/backward, 4 lanes at a time.
 * Spec: ../gelu.ts. tanh(u) = 1 − 2 / (e^{2u} + 1) with vexp (simd.h): saturates cleanly to ±1.
 * Loop tails run the same vector code on one lane, so an element's result does not depend on
 * where it sits in the array (sampling one row equals scoring many).
 */
#include "simd.h"

#define GELU_S 0.7978845608028654f /* sqrt(2/pi) */
#define GELU_A 0.044715f

static inline v128_t vtanh(v128_t u) {
  const v128_t e = vexp(wasm_f32x4_add(u, u));
  return wasm_f32x4_sub(SPLAT(1.0f), wasm_f32x4_div(SPLAT(2.0f), wasm_f32x4_add(e, SPLAT(1.0f))));
}

static inline v128_t vgelu(v128_t x) {
  const v128_t x3 = wasm_f32x4_mul(wasm_f32x4_mul(x, x), x);
  const v128_t u = wasm_f32x4_mul(SPLAT(GELU_S), wasm_f32x4_add(x, wasm_f32x4_mul(SPLAT(GELU_A), x3)));
  return wasm_f32x4_mul(wasm_f32x4_mul(SPLAT(0.5f), x), wasm_f32x4_add(SPLAT(1.0f), vtanh(u)));
}

/* gelu'(x) */
static inline v128_t vdgelu(v128_t x) {
  const v128_t xx = wasm_f32x4_mul(x, x);
  const v128_t u = wasm_f32x4_mul(SPLAT(GELU_S), wasm_f32x4_add(x, wasm_f32x4_mul(SPLAT(GELU_A), wasm_f32x4_mul(xx, x))));
  const v128_t th = vtanh(u);
  const v128_t sech2 = wasm_f32x4_sub(SPLAT(1.0f), wasm_f32x4_mul(th, th));
  const v128_t left = wasm_f32x4_mul(SPLAT(0.5f), wasm_f32x4_add(SPLAT(1.0f), th));
  const v128_t du = wasm_f32x4_mul(SPLAT(GELU_S), wasm_f32x4_add(SPLAT(1.0f), wasm_f32x4_mul(SPLAT(3.0f * GELU_A), xx)));
  return wasm_f32x4_add(left, wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_mul(SPLAT(0.5f), x), sech2), du));
}

__attribute__((export_name("gelu_forward")))
void gelu_forward(float *out, const float *inp, int N) {
  int i = 0;
  for (; i + 4 <= N; i += 4) ST(out + i, vgelu(LD(inp + i)));
  for (; i < N; i++) out[i] = wasm_f32x4_extract_lane(vgelu(SPLAT(inp[i])), 0);
}

__attribute__((export_name("gelu_backward")))
void gelu_backward(float *dinp, const float *inp, const float *dout, int N) {
  int i = 0;
  for (; i + 4 <= N; i += 4) ST(dinp + i, wasm_f32x4_add(LD(dinp + i), wasm_f32x4_mul(vdgelu(LD(inp + i)), LD(dout + i))));
  for (; i < N; i++) dinp[i] += wasm_f32x4_extract_lane(vdgelu(SPLAT(inp[i])), 0) * dout[i];
}
