/*
 * One instruction set's build of the C kernels for the native library: the ../wasm C sources compiled as
 * one unit over simd.h's clang-vector layer (VL lanes, -m flags from build.ts), plus the entry
 * points the FFI calls, named tl_<ISA>_<kernel>. Every entry point takes the arena's base
 * address and then the same i32 arguments as the wasm export of that name (byte offsets into
 * the arena, sizes), so loader.ts and the kernel pool call both backends the same way.
 */
#include "../wasm/matmul.c"
#include "../wasm/attention.c"
#include "../wasm/pointwise.c"
#include "../wasm/head.c"

#define CAT4(a, b, c, d) a##b##c##d
#define XCAT4(a, b, c, d) CAT4(a, b, c, d)
#define NAME(k) XCAT4(tl_, ISA, _, k)
#define PUB __attribute__((visibility("default")))
/* an arena view at byte offset o (offsets are unsigned: an arena may reach 4 GiB as in wasm) */
#define F(o) ((float *)(base + (unsigned)(o)))
#define I(o) ((int *)(base + (unsigned)(o)))

PUB void NAME(matmul_forward)(char *base, int out, int inp, int weight, int bias, int hasBias, int BT, int C, int OC) {
  matmul_forward(F(out), F(inp), F(weight), F(bias), hasBias, BT, C, OC);
}
PUB void NAME(matmul_forward_t)(char *base, int out, int inp, int weight, int bias, int hasBias, int BT, int C, int OC, int wt, int wtReady) {
  matmul_forward_t(F(out), F(inp), F(weight), F(bias), hasBias, BT, C, OC, F(wt), wtReady);
}
PUB void NAME(matmul_backward_part)(char *base, int dinp, int dweight, int dbias, int flags, int dout, int inp, int weight,
                                    int BT, int C, int OC, int r0, int r1, int o0, int o1) {
  matmul_backward_part(F(dinp), F(dweight), F(dbias), flags, F(dout), F(inp), F(weight), BT, C, OC, r0, r1, o0, o1);
}
PUB void NAME(attention_forward)(char *base, int out, int att, int qkv, int lens, int B, int T, int C, int NH) {
  attention_forward(F(out), F(att), F(qkv), I(lens), B, T, C, NH);
}
PUB void NAME(attention_backward)(char *base, int dqkv, int scratch, int dout, int qkv, int att, int lens, int B, int T, int C, int NH) {
  attention_backward(F(dqkv), F(scratch), F(dout), F(qkv), F(att), I(lens), B, T, C, NH);
}
PUB void NAME(attention_forward_prefixed)(char *base, int out, int att, int qkv, int lens, int B, int T, int C, int NH, int pqkv, int pref, int Tk) {
  attention_forward_prefixed(F(out), F(att), F(qkv), I(lens), B, T, C, NH, F(pqkv), I(pref), Tk);
}
PUB void NAME(attention_backward_prefixed)(char *base, int dqkv, int dpqkv, int scratch, int dout, int qkv, int att, int lens,
                                           int B, int T, int C, int NH, int pqkv, int pref, int Tk) {
  attention_backward_prefixed(F(dqkv), F(dpqkv), F(scratch), F(dout), F(qkv), F(att), I(lens), B, T, C, NH, F(pqkv), I(pref), Tk);
}
PUB void NAME(attention_decode)(char *base, int out, int att, int q, int kc, int vc, int t, int C, int NH) {
  attention_decode(F(out), F(att), F(q), F(kc), F(vc), t, C, NH);
}
PUB void NAME(attention_decode_rows)(char *base, int out, int att, int qkv, int kc, int vc, int rows, int N, int T, int C, int NH) {
  attention_decode_rows(F(out), F(att), F(qkv), F(kc), F(vc), I(rows), N, T, C, NH);
}
PUB void NAME(adamw_update)(char *base, int p, int g, int m, int v, int n, double lr, double b1, double b2, double eps, double wd, double bc1,
                            double bc2, double gs) {
  adamw_update(F(p), F(g), F(m), F(v), n, lr, b1, b2, eps, wd, bc1, bc2, gs);
}
PUB void NAME(residual_forward)(char *base, int out, int a, int b, int N) { residual_forward(F(out), F(a), F(b), N); }
PUB void NAME(gelu_forward)(char *base, int out, int inp, int N) { gelu_forward(F(out), F(inp), N); }
PUB void NAME(gelu_backward)(char *base, int dinp, int inp, int dout, int N, int fresh) { gelu_backward(F(dinp), F(inp), F(dout), N, fresh); }
PUB void NAME(layernorm_forward)(char *base, int out, int mean, int rstd, int inp, int weight, int bias, int N, int C) {
  layernorm_forward(F(out), F(mean), F(rstd), F(inp), F(weight), F(bias), N, C);
}
PUB void NAME(layernorm_backward)(char *base, int dinp, int dweight, int dbias, int dout, int inp, int weight, int mean, int rstd, int N, int C) {
  layernorm_backward(F(dinp), F(dweight), F(dbias), F(dout), F(inp), F(weight), F(mean), F(rstd), N, C);
}
PUB void NAME(head_forward)(char *base, int probs, int logprob, int entropy, int logits, int targets, int M, int V, int Vp) {
  head_forward(F(probs), F(logprob), F(entropy), F(logits), I(targets), M, V, Vp);
}
PUB void NAME(head_backward)(char *base, int dlogits, int probs, int logits, int logprob, int entropy, int targets, int dlogprob, int dentropy,
                             int M, int V, int Vp) {
  head_backward(F(dlogits), F(probs), F(logits), F(logprob), F(entropy), I(targets), F(dlogprob), F(dentropy), M, V, Vp);
}
