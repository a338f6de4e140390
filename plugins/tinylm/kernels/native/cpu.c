/*
 * Which of the library's builds this CPU (and its OS) can run: 2 = AVX-512F, 1 = AVX2 + FMA,
 * 0 = baseline x86-64 (SSE2). CPUID for the instructions, XGETBV for the OS saving the wider
 * registers (Intel SDM vol. 1 §13.3 / §15.2: XCR0 bits 1-2 for AVX, 5-7 for AVX-512).
 * No libc: inline assembly only.
 */
static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
  __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

__attribute__((visibility("default"))) int tl_cpu_level(void) {
  unsigned r[4];
  cpuid(0, 0, r);
  const unsigned maxLeaf = r[0];
  cpuid(1, 0, r);
  const int osxsave = (r[2] >> 27) & 1, avx = (r[2] >> 28) & 1, fma = (r[2] >> 12) & 1;
  if (!osxsave || !avx || maxLeaf < 7) return 0;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  (void)hi;
  if ((lo & 0x6) != 0x6) return 0;
  cpuid(7, 0, r);
  const int avx2 = (r[1] >> 5) & 1, avx512f = (r[1] >> 16) & 1;
  if (avx512f && fma && (lo & 0xe6) == 0xe6) return 2;
  return avx2 && fma ? 1 : 0;
}
