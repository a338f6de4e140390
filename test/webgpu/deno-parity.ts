/**
 * Run by test/webgpu/parity.test.ts as `deno run -A test/webgpu/deno-parity.ts`: real WebGPU
 * (Deno's navigator.gpu; Mesa lavapipe on a machine without a GPU). Prints one JSON line:
 * {skip} when there is no adapter, else per-kernel errors, whole-model errors (token log-probs,
 * sums, per-token means, against the CPU policy), MI-proxy differences, and the device-loss
 * fallback's outcome. The Bun test asserts on it.
 */
import { miProxies } from "../../core/diagnostics/mi.ts"
import { makeCpuScorer } from "../../plugins/scorers/cpu.ts"
import { requestDevice } from "../../plugins/webgpu/adapter.ts"
import { InProcessBackend } from "../../plugins/webgpu/backend.ts"
import { type EngineStats, Pipelines } from "../../plugins/webgpu/engine.ts"
import { scoreRow } from "../../plugins/webgpu/layout.ts"
import { type Fuse, planStats } from "../../plugins/webgpu/plan.ts"
import { makeWebGpuScorer } from "../../plugins/webgpu/scorer.ts"
import { modelView } from "../../plugins/webgpu/view.ts"
import { fixtureBatch, fixturePolicy } from "./fixture.ts"
import { compare, type ErrorReport, kernelParity } from "./kernel-parity.ts"

const print = (x: unknown) => console.log(JSON.stringify(x))
const gpu = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu
const got = gpu ? await requestDevice(gpu, "navigator.gpu") : { reason: "no navigator.gpu" }
if ("reason" in got) {
  print({ skip: got.reason })
} else {
  const kernels = await kernelParity(got.device, await Pipelines.create(got.device))
  const policy = fixturePolicy()
  const view = modelView(policy)
  if ("reason" in view) throw new Error(view.reason)
  const warnings: string[] = []
  const backend = new InProcessBackend(got, { maxPositions: 256 }) // small chunks: several per call, a prompt group split across two
  const gpuScorer = makeWebGpuScorer(view, backend, makeCpuScorer(policy), (l) => warnings.push(l))
  const cpuScorer = makeCpuScorer(policy)
  const batch = fixtureBatch(12, 6)

  // token log-probs of every (reasoning, prompt) pair against policy.score (the CPU forward)
  const pairs = batch.reasonings.filter((r) => r.length > 0).flatMap((r) => batch.prompts.map((p) => ({ prompt: p, continuation: r })))
  const cpuTok = await policy.score(pairs)
  const rows = pairs.map((q, i) => scoreRow(view.encodePrompt(q.prompt), cpuTok[i]!.tokens as Int32Array, view.config.ctx, view.sharePrefix))
  const g = await gpuScorer.scoreRows(rows)
  const flat = (xs: ArrayLike<number>[]) => Float64Array.from(xs.flatMap((x) => Array.from(x)))
  const cpuFlat = flat(cpuTok.map((c, i) => c.logprobs.subarray(0, rows[i]!.scored)))
  const tokenLogprobs = compare(flat(g.tokens), cpuFlat)
  // the other dispatch lists (plan.ts Fuse) on the same rows: the CPU's numbers too
  // with what the engine counted for that call against plan.ts planStats (counted on the host)
  const weightBytes = view.params().byteLength
  const counted = (st: EngineStats) => ({ submissions: st.submissions, dispatches: st.dispatches, uploadBytes: st.uploadBytes - weightBytes, readbackBytes: st.readbackBytes })
  const planned = (fuse: Fuse) => {
    const p = planStats(view.config, 256, rows, { fuse, perToken: true })
    return { submissions: p.submissions, dispatches: p.dispatches, uploadBytes: p.uploadBytes, readbackBytes: p.readbackBytes }
  }
  const lists: Record<string, { tokenLogprobs: ErrorReport; dispatches: number; engine: unknown; plan: unknown }> = {
    epilogues: { tokenLogprobs, dispatches: backend.stats!.dispatches, engine: counted(backend.stats!), plan: planned("epilogues") }
  }
  for (const [name, fuse, tile] of [
    ["none", "none", 64],
    ["all", "all", 64],
    ["epilogues/32", "epilogues", 32],
    ["all/32", "all", 32]
  ] as const) {
    const b = new InProcessBackend(got, { maxPositions: 256, fuse, tile })
    await b.setWeights(view.config, view.params(), view.version())
    const gu = await b.score(rows, { tokenLogprobs: true })
    lists[name] = { tokenLogprobs: compare(flat(gu.tokens!), cpuFlat), dispatches: b.stats!.dispatches, engine: counted(b.stats!), plan: planned(fuse) }
    b.close()
  }

  const Lc = await cpuScorer.score(batch.reasonings, batch.prompts)
  const Lg = await gpuScorer.score(batch.reasonings, batch.prompts)
  const sum = compare(Lg.sum, Lc.sum),
    tokenMean = compare(Lg.tokenMean, Lc.tokenMean)
  const mi = (L: typeof Lc) => miProxies({ tokenMean: L.tokenMean, sum: L.sum, rows: L.rows, cols: L.cols, column: batch.column, signature: batch.prompts }, {})
  const mc = mi(Lc),
    mg = mi(Lg)
  const miDiff: Record<string, ErrorReport> = {}
  for (const [k, v] of Object.entries(mc)) if (typeof v === "number") miDiff[k] = compare([(mg as unknown as Record<string, number>)[k]!], [v])
  const weightsAgain = await backend.setWeights(view.config, view.params(), view.version()) // same version: no upload

  // the per-kernel profile (timestamp-query): every dispatch of the call timed once
  const pb = new InProcessBackend(got, { maxPositions: 256 })
  await pb.setWeights(view.config, view.params(), view.version())
  const byKernel = pb.profile()
  let profile: unknown = "no timestamp-query"
  if (byKernel) {
    const pr = await pb.score(rows)
    const all = [...byKernel.values()]
    profile = {
      timed: all.reduce((n, e) => n + e.count, 0),
      planned: planStats(view.config, 256, rows, { fuse: "epilogues" }).dispatches,
      totalNs: all.reduce((n, e) => n + e.ns, 0),
      sumDiff: compare(pr.sum, g.sum).maxAbs
    }
  }
  pb.close()

  // teacher forcing (train.teacherForcing: scorer): the live policy's forward and its snapshot's score
  const items = pairs.map((q, i) => ({ prompt: q.prompt, tokens: cpuTok[i]!.tokens as Int32Array }))
  items.push({ prompt: batch.prompts[0]!, tokens: new Int32Array(0) }) // an empty turn
  const fwCpu = await policy.forward(items)
  const fwGpu = await gpuScorer.forward(policy, items)
  const ref = await policy.snapshot()
  const refCpu = await ref.score(items.map((it) => ({ prompt: it.prompt, continuation: it.tokens })))
  const refGpu = await gpuScorer.forward(ref, items)
  if (!fwGpu || !refGpu) throw new Error(`teacher forcing fell back: ${warnings.join("; ")}`)
  const teacher = {
    logprobs: compare(flat(fwGpu.map((f) => f.logprobs)), flat(fwCpu.map((f) => f.logprobs))),
    entropy: compare(flat(fwGpu.map((f) => f.entropy)), flat(fwCpu.map((f) => f.entropy))),
    values: compare(flat(fwGpu.map((f) => f.values)), flat(fwCpu.map((f) => f.values))),
    refLogprobs: compare(flat(refGpu.map((f) => f.logprobs)), flat(refCpu.map((r) => r.logprobs))),
    refEntropy: compare(flat(refGpu.map((f) => f.entropy)), flat(refCpu.map((r) => r.entropy))),
    items: items.length
  }

  // device loss: one warning, then the CPU scorer's exact numbers
  const backendBefore = gpuScorer.backendName()
  await gpuScorer.loseDevice()
  const Lf = await gpuScorer.score(batch.reasonings, batch.prompts)
  await gpuScorer.score(batch.reasonings.slice(0, 3), batch.prompts) // no second warning
  const fallbackExact = Lf.sum.every((x, i) => x === Lc.sum[i]) && Lf.tokenMean.every((x, i) => x === Lc.tokenMean[i])
  print({
    adapter: got.adapter,
    backend: backendBefore,
    kernels,
    model: { tokenLogprobs, sum, tokenMean, pairs: pairs.length, shape: { rows: Lc.rows, cols: Lc.cols } },
    lists,
    profile,
    mi: miDiff,
    regimes: [mc.regime, mg.regime],
    reupload: weightsAgain,
    teacher,
    fallback: { exact: fallbackExact, warnings, backend: gpuScorer.backendName() }
  })
}
