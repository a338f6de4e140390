/**
 * Cost of the collapse diagnostics (docs/decisions.md#issue-6) at P = 8, G = 16 on tinylm `tiny`, FrozenLake:
 * 1. the CPU CrossScorer on the trainer's first-turn rows (diagRows 128 reasonings × 8 prompts =
 *    1,024 sequences), for teacher reasonings (what a post-SFT policy writes) and for the
 *    untrained policy's own samples, side by side with the pair-by-pair scorer (tinybench, --iters
 *    rounds in alternating order, median over rounds of each round's median), and miProxies on
 *    the result (tinybench median).
 * 2. side by side in this process, alternating: runTraining with diagEvery 0, 5, and 5 with the
 *    pair-by-pair scorer (sftSteps 0, same seed, so all see the same rollouts), and the
 *    diagnostics' share of a training step:
 *    the mean perf/diag_seconds of a diagnostics step over 5 × the mean step without them (one
 *    diagnostics step per 5; docs/decisions.md#issue-6's target ≤ 15%).
 *    MI scores only valid first turns, and an untrained policy writes few: with --sft-steps 0 a
 *    diagnostics step may have no MI rows; --sft-steps N warm-starts all variants from one SFT
 *    (cached in the shared output folder, excluded from the timed steps).
 * Usage: bun benchmarks/diagnostics.ts [--iters 5] [--steps 5] [--rounds 1] [--sft-steps 0] [--json]
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { frozenLakeSpec } from "../envs/frozenlake/env.ts"
import { miProxies } from "../core/diagnostics/mi.ts"
import { buildPrompt, parseResponse } from "../core/prompt.ts"
import { Rng } from "../core/rng.ts"
import { decodeSync } from "../core/schema/decode.ts"
import { RunConfig } from "../core/contracts/run-config.ts"
import { builtinPlugins } from "../builtins.ts"
import { runTraining } from "../core/train/run.ts"
import { type CrossScorer, definePlugin, type Policy } from "../core/contracts/index.ts"
import { CpuScorerOptions, makeCpuScorer } from "../plugins/scorers/cpu.ts"
import { makeTinyLM, TinyLMOptions } from "../plugins/tinylm/spec.ts"
import { Bench } from "tinybench"
import { alternate, figures, tinybenchVersion } from "./_tinybench.ts"

const args = process.argv.slice(2)
const flag = (name: string, d: number) => {
  const v = Number(args[args.indexOf(name) + 1])
  return args.includes(name) && Number.isInteger(v) && v >= 0 ? v : d
}
const iters = flag("--iters", 5)
const steps = flag("--steps", 5)
const rounds = flag("--rounds", 1)
const sftSteps = flag("--sft-steps", 0)
const asJson = args.includes("--json")
const P = 8,
  G = 16,
  ROWS = 128

const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `deno ${(globalThis as any).Deno?.version?.deno}`
const report = (row: Record<string, unknown>) =>
  console.log(
    asJson
      ? JSON.stringify({ ...row, runtime, tinybench: tinybenchVersion })
      : Object.entries(row)
          .map(([k, v]) => `${k}=${v}`)
          .join("  ")
  )

/** The CPU scorer before the dedupe/length-order change: every (r, j) pair in row-major batches of 64. */
const makePairByPair = (p: Policy): CrossScorer => ({
  id: "pair-by-pair",
  score: async (rs, ps) => {
    const N = ps.length
    const sum = new Float64Array(rs.length * N),
      tokenMean = new Float64Array(rs.length * N)
    for (let start = 0; start < sum.length; start += 64) {
      const reqs = []
      for (let q = start; q < Math.min(sum.length, start + 64); q++) reqs.push({ prompt: ps[q % N]!, continuation: rs[Math.floor(q / N)]! })
      const res = await p.score(reqs)
      res.forEach((x, q) => {
        const t = x.logprobs.reduce((a, b) => a + b, 0)
        sum[start + q] = t
        tokenMean[start + q] = x.logprobs.length > 0 ? t / x.logprobs.length : 0
      })
    }
    return { tokenMean, sum, rows: rs.length, cols: N }
  }
})

// ---- 1. scorer and proxies on the trainer's first-turn rows
const envOptions = decodeSync(frozenLakeSpec.options, { successRate: 1 })
if (!envOptions.ok) throw new Error(envOptions.message)
const tinyOptions = decodeSync(TinyLMOptions, { preset: "tiny" })
if (!tinyOptions.ok) throw new Error(tinyOptions.message)
const policy = await makeTinyLM(tinyOptions.value, { vocabulary: frozenLakeSpec.vocabulary(envOptions.value), seed: 1 })
const seeds = Array.from({ length: P }, (_, i) => 10000 + i)
const prompts: string[] = []
const teacher: string[] = []
const rng = new Rng(7)
for (const seed of seeds) {
  const env = frozenLakeSpec.make(envOptions.value)
  // Markov prompts without instructions, as the trainer builds them for grid envs.
  prompts.push(buildPrompt({ observation: env.reset(seed) }))
  for (let k = 0; k < G; k++) teacher.push(env.teach({ epsilon: 0, reasoningNoise: 0.5 }, rng).reasoning)
}
const column = Int32Array.from({ length: ROWS }, (_, r) => Math.floor(r / G))
const sampled = (
  await policy.sample(
    prompts.flatMap((p) => Array(G).fill(p)),
    { temperature: 1, topP: 1, minP: 0, maxTokens: 64 },
    new Rng(3)
  )
).map((c) => parseResponse(c.text).reasoning)
const scorer = makeCpuScorer(policy)
const pairByPair = makePairByPair(policy)
for (const [name, reasonings] of [
  ["teacher", teacher],
  ["untrained-samples", sampled]
] as const) {
  const tokens = reasonings.reduce((a, r) => a + policy.tokenizer.encode(r).length, 0) / reasonings.length
  let L = await scorer.score(reasonings, prompts)
  // Same matrix as pair by pair (the savings must not change L).
  const ref = (await pairByPair.score(reasonings, prompts)).sum
  const maxDiff = ref.reduce((m, x, i) => Math.max(m, Math.abs(x - L.sum[i]!)), 0)
  // Alternate the two so that load on the shared machine hits both alike; each round is one call
  // of each (a call takes seconds, so tinybench's minimum iteration count is set to 1).
  const ms = await alternate(
    [
      { name: "ours", fn: async () => (L = await scorer.score(reasonings, prompts)) },
      { name: "pair-by-pair", fn: () => pairByPair.score(reasonings, prompts) }
    ],
    { rounds: iters, time: 0, iterations: 1 }
  )
  const input = { tokenMean: L.tokenMean, sum: L.sum, rows: L.rows, cols: L.cols, column, signature: prompts }
  const miBench = new Bench({ time: 200, warmupTime: 50 }).add("miProxies", () => miProxies(input))
  await miBench.run()
  const miS = figures(miBench.tasks[0]!).medianMs / 1000
  report({
    task: `cross-score ${ROWS}x${P} tiny ${name}`,
    sequences: ROWS * P,
    distinctReasonings: new Set(reasonings).size,
    reasoningTokens: +tokens.toFixed(1),
    scoreSeconds: +(ms.ours! / 1000).toFixed(4),
    pairByPairSeconds: +(ms["pair-by-pair"]! / 1000).toFixed(4),
    speedup: +(ms["pair-by-pair"]! / ms.ours!).toFixed(2),
    maxAbsDiffSum: maxDiff,
    miProxiesSeconds: +miS.toExponential(3)
  })
}

// ---- 2. a training step with and without the diagnostics (and with the pair-by-pair scorer)
const pairPlugin = definePlugin({
  name: "bench",
  version: "0.0.0",
  scorers: [
    {
      id: "pair-by-pair",
      description: "the CPU scorer before dedupe and length order (benchmark reference)",
      options: CpuScorerOptions,
      make: async (_o: unknown, p: Policy) => makePairByPair(p)
    }
  ]
})
type Variant = "diag0" | "diag5" | "diag5-pair-by-pair"
const configOf = (v: Variant) => {
  const diagEvery = v === "diag0" ? 0 : 5
  const r = decodeSync(RunConfig, {
    env: "frozenlake",
    envOptions: { successRate: 1 },
    P,
    G,
    steps,
    seed: 1,
    lr: 1e-4,
    train: { sftSteps, sftTurns: 2048, diagEvery, evalEvery: 0, valSeeds: 8, valTemperatures: [0.5], checkpointEvery: 0, ...(v === "diag5-pair-by-pair" ? { scorer: "bench/pair-by-pair" } : {}) }
  })
  if (!r.ok) throw new Error(r.message)
  return r.value
}
const perStep: Record<Variant, Array<Record<string, number | null>>> = { diag0: [], diag5: [], "diag5-pair-by-pair": [] }
const variants: Variant[] = ["diag0", "diag5", "diag5-pair-by-pair"]
// One output folder for every variant and round, so that an SFT warm start is made once (its
// cache key does not depend on the diagnostics settings); `fresh` reruns a variant's run.
const out = mkdtempSync(join(tmpdir(), "ragen-bench-diag-"))
for (let round = 0; round < rounds; round++) {
  for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
    await runTraining(configOf(v), { outDir: out, fresh: true, plugins: [...builtinPlugins, pairPlugin], onProgress: (p) => p.step > 0 && perStep[v].push(p.metrics), onLog: () => {} })
  }
}
rmSync(out, { recursive: true, force: true })
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
const col = (ms: Array<Record<string, number | null>>, k: string) => ms.map((m) => Number(m[k] ?? 0))
const base = perStep["diag0"]
const stepNoDiag = mean(col(base, "perf/step_seconds"))
// Steps that ran the diagnostics are the ones that logged MI proxies.
const diagCost = (v: Variant) =>
  mean(
    col(
      perStep[v].filter((m) => typeof m["mi/first_turn/mi_est"] === "number"),
      "perf/diag_seconds"
    )
  )
const miSteps = perStep["diag5"].filter((m) => typeof m["mi/first_turn/mi_est"] === "number").length
if (miSteps === 0) console.log("note: no diagnostics step logged MI proxies (no valid first turns to score); the diag* figures below are 0. Pass --sft-steps N.")
const ours = diagCost("diag5")
const before = diagCost("diag5-pair-by-pair")
report({
  task: `train frozenlake tiny P${P}xG${G} sftSteps ${sftSteps}, ${steps} steps x ${rounds} rounds`,
  miSteps,
  stepSecondsDiag0: +stepNoDiag.toFixed(3),
  stepSecondsDiag5: +mean(col(perStep["diag5"], "perf/step_seconds")).toFixed(3),
  rolloutSeconds: +mean(col(base, "perf/rollout_seconds")).toFixed(3),
  updateSeconds: +mean(col(base, "perf/update_seconds")).toFixed(3),
  diagSecondsPerDiagStep: +ours.toFixed(3),
  diagSecondsPerDiagStepPairByPair: +before.toFixed(3),
  // One diagnostics step per diagEvery = 5 steps: its cost over five plain steps.
  diagShareEvery5: +(ours / (5 * stepNoDiag)).toFixed(4),
  diagShareEvery5PairByPair: +(before / (5 * stepNoDiag)).toFixed(4),
  // As measured over this short run (steps 1 and 5 both carry diagnostics, so this over-weights them).
  measuredOverheadThisRun: +((mean(col(perStep["diag5"], "perf/step_seconds")) - stepNoDiag) / stepNoDiag).toFixed(4)
})
