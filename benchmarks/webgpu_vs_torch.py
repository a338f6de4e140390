#!/usr/bin/env python3
"""The PyTorch side of benchmarks/webgpu-vs-torch.ts (issue 29): teacher-forced scoring of the
same rows with the same weights, written for this repository (not a copy of any reference).

Input folder (written by the TS side):
  model.safetensors  tinylm's tensors by name (wte [Vp,C], wpe [ctx,C], ln1w [L,C], qkvw [L,3C,C], ...)
  rows.bin           int32: R, then per row [len, promptLen, split, scored, total, tokens...]
                     (plugins/webgpu/layout.ts packRows)
  meta.json          {"config": {vocab, ctx, d, layers, heads}}
Output: sums.f32 (per row the sum of its scored tokens' log-probs, fp32 eager, row order) and one
JSON line on stdout: device, torch version, and per mode the median seconds over --iters
(CUDA events on a GPU), scored tokens and tokens/s.

The forward is tinylm's (plugins/tinylm/model.ts): token + position embeddings, pre-LN blocks
(fused QKV, causal attention, GELU tanh MLP), final LayerNorm, tied head over the V real
vocabulary entries. Position t of a row is its index in the row (as the WebGPU and CPU paths).
The head runs only at the scored positions (gathered first), as both other paths do; rows are
sorted by length and padded on the right within a batch (causal: padding changes nothing before it).
Needs only torch (1.13 works; torch.compile when present and asked).
"""
import argparse
import json
import os
import statistics
import struct
import sys
import time

import torch
import torch.nn.functional as F


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        if t["dtype"] != "F32":
            raise SystemExit(f"{path}: tensor {name} is {t['dtype']}, expected F32")
        a, b = t["data_offsets"]
        out[name] = torch.frombuffer(bytearray(raw[base + a : base + b]), dtype=torch.float32).reshape(t["shape"])
    return out


def read_rows(path):
    with open(path, "rb") as f:
        x = torch.frombuffer(bytearray(f.read()), dtype=torch.int32)
    rows, o = [], 1
    for _ in range(int(x[0])):
        n, plen, _split, scored, total = (int(v) for v in x[o : o + 5])
        rows.append((x[o + 5 : o + 5 + n].to(torch.int64), plen, scored, total))
        o += 5 + n
    return rows


def batches(rows, size, device):
    """Rows sorted by length, in batches: padded tokens, the gather index of each scored
    position (the one that predicts it), its target, and a mask."""
    order = sorted(range(len(rows)), key=lambda i: len(rows[i][0]))
    out = []
    for s in range(0, len(order), size):
        idx = order[s : s + size]
        T = max(len(rows[i][0]) for i in idx)
        S = max(1, max(rows[i][2] for i in idx))
        tok = torch.zeros(len(idx), T, dtype=torch.int64)
        pos = torch.zeros(len(idx), S, dtype=torch.int64)
        tgt = torch.zeros(len(idx), S, dtype=torch.int64)
        mask = torch.zeros(len(idx), S, dtype=torch.bool)
        for b, i in enumerate(idx):
            t, plen, scored, _ = rows[i]
            tok[b, : len(t)] = t
            for k in range(scored):
                pos[b, k] = plen - 1 + k
                tgt[b, k] = t[plen + k]
                mask[b, k] = True
        out.append((torch.tensor(idx), tok.to(device), pos.to(device), tgt.to(device), mask.to(device)))
    return out


def make_score(W, cfg):
    C, L, NH, V = cfg["d"], cfg["layers"], cfg["heads"], cfg["vocab"]
    hs = C // NH

    def score(tok, pos, tgt, mask):
        B, T = tok.shape
        x = W["wte"][tok] + W["wpe"][:T]
        causal = torch.ones(T, T, dtype=torch.bool, device=tok.device).tril()
        for l in range(L):
            h = F.layer_norm(x, (C,), W["ln1w"][l], W["ln1b"][l], 1e-5)
            q, k, v = F.linear(h, W["qkvw"][l], W["qkvb"][l]).split(C, dim=2)
            q, k, v = (z.view(B, T, NH, hs).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (hs**-0.5)
            att = att.masked_fill(~causal, float("-inf")).softmax(dim=-1)
            y = (att @ v).transpose(1, 2).reshape(B, T, C)
            x = x + F.linear(y, W["attprojw"][l], W["attprojb"][l])
            h = F.layer_norm(x, (C,), W["ln2w"][l], W["ln2b"][l], 1e-5)
            x = x + F.linear(F.gelu(F.linear(h, W["fcw"][l], W["fcb"][l]), approximate="tanh"), W["fcprojw"][l], W["fcprojb"][l])
        sel = x.gather(1, pos.unsqueeze(2).expand(B, pos.shape[1], C))
        sel = F.layer_norm(sel, (C,), W["lnfw"], W["lnfb"], 1e-5)
        logp = (sel @ W["wte"][:V].t()).float().log_softmax(dim=-1)
        lp = logp.gather(2, tgt.unsqueeze(2)).squeeze(2)
        return (lp * mask).sum(dim=1)

    return score


def run_all(score, bs, R, device):
    sums = torch.zeros(R, dtype=torch.float32, device=device)
    for idx, tok, pos, tgt, mask in bs:
        sums[idx.to(device)] = score(tok, pos, tgt, mask).float()
    return sums


def timed(f, iters, device):
    f()  # warm-up (and compilation)
    ts = []
    for _ in range(iters):
        if device.type == "cuda":
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            f()
            b.record()
            torch.cuda.synchronize()
            ts.append(a.elapsed_time(b) / 1000)
        else:
            t0 = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--modes", default="eager", help="comma list of eager, bf16 (autocast), compile")
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--batch", type=int, default=16384, help="rows per forward")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch's default)")
    a = ap.parse_args()
    if a.device == "cuda" and not torch.cuda.is_available():
        print(json.dumps({"error": f"torch {torch.__version__} has no CUDA device"}))
        return 3
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    device = torch.device(a.device)
    cfg = json.load(open(os.path.join(a.folder, "meta.json")))["config"]
    W = {k: v.to(device) for k, v in read_safetensors(os.path.join(a.folder, "model.safetensors")).items()}
    rows = read_rows(os.path.join(a.folder, "rows.bin"))
    tokens = sum(r[2] for r in rows)
    bs = batches(rows, a.batch, device)
    score = make_score(W, cfg)
    out = {"device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu", "torch": torch.__version__, "rows": len(rows), "tokens": tokens, "modes": {}}
    with torch.inference_mode():
        sums = run_all(score, bs, len(rows), device)
        with open(os.path.join(a.folder, "sums.f32"), "wb") as f:
            f.write(struct.pack(f"<{len(rows)}f", *sums.cpu().tolist()))
        for mode in a.modes.split(","):
            if mode == "eager":
                f = lambda: run_all(score, bs, len(rows), device)
            elif mode == "bf16":
                def f():
                    with torch.autocast(device.type, dtype=torch.bfloat16):
                        return run_all(score, bs, len(rows), device)
            elif mode == "compile":
                if not hasattr(torch, "compile"):
                    out["modes"][mode] = {"error": f"torch {torch.__version__} has no torch.compile"}
                    continue
                cs = torch.compile(score, dynamic=True)
                f = lambda: run_all(cs, bs, len(rows), device)
            else:
                raise SystemExit(f"unknown mode {mode}; use eager, bf16 or compile")
            s = timed(f, a.iters, device)
            out["modes"][mode] = {"seconds": s, "tokensPerSecond": tokens / s}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
