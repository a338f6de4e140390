/*
 * One core's fp32 peak, measured: 24 independent AVX-512 fused multiply-add chains (enough to
 * cover the FMA latency on two pipes), timed over a fixed count. The peak that
 * benchmarks/native-family-cost.ts divides by (--peak-core), so that a kernel's "share of peak"
 * is against this core's real clock rather than a nominal one.
 *   clang -O2 -mavx512f -o /tmp/peak-flops benchmarks/peak-flops.c && /tmp/peak-flops
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define CHAINS 24
#define ITERS 40000000L

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  __m512 acc[CHAINS];
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int c = 0; c < CHAINS; c++) acc[c] = _mm512_set1_ps((float)c);
  double best = 0;
  for (int round = 0; round < 5; round++) {
    double t0 = now();
    for (long i = 0; i < ITERS / CHAINS; i++)
      for (int c = 0; c < CHAINS; c++) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
    double s = now() - t0;
    double gflops = (double)(ITERS / CHAINS) * CHAINS * 16 * 2 / s / 1e9;
    if (gflops > best) best = gflops;
  }
  float sink = 0;
  for (int c = 0; c < CHAINS; c++) sink += _mm512_reduce_add_ps(acc[c]);
  printf("one core fp32 peak: %.1f GFLOP/s (AVX-512 FMA, best of 5; checksum %g)\n", best, sink);
  return 0;
}
