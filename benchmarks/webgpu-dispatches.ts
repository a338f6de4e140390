/**
 * Dispatches and bytes moved per batch of the WebGPU scorer (docs/decisions.md#issue-29's "fewer dispatches and
 * copies" lever), before and after, counted on the host without a GPU (plugins/webgpu/plan.ts
 * planStats: the engine's own plan; test/webgpu/parity.test.ts checks that the engine counts the
 * same on a real device). Rows: benchmarks/webgpu-cases.ts.
 *   before  the dispatch list 5 + 10·L and the whole ids array uploaded per chunk (commit 4824b2b);
 *   after   fuse: epilogues (the default) and the ids at their used size;
 *   all     fuse: all (LayerNorm in the matmul prologues too).
 * Per batch: submissions (chunks), dispatches, host → device bytes (ids + uniform slots; the
 * weights go up once per version and are not counted), device → host bytes, and the modelled
 * kernel traffic (plan.ts opBytes: each operand read once per dispatch; a model, not a measurement).
 *
 * Usage: bun benchmarks/webgpu-dispatches.ts [--cases p8,p32,stress] [--max-positions 16384] [--per-token] [--weights init|warmstart] [--json]
 */
import { paddedVocab } from "../plugins/tinylm/config.ts"
import { floatsPerPosition, planStats } from "../plugins/webgpu/plan.ts"
import { CASES, caseBatch, view } from "./webgpu-cases.ts"

const args = process.argv.slice(2)
const opt = (name: string, d: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : d)
const wanted = opt("--cases", "p8,p32,stress").split(",")
const cap = Number(opt("--max-positions", "16384"))
const perToken = args.includes("--per-token")
const json = args.includes("--json")

const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`
const lines: string[] = [
  `model: d ${view.config.d}, ${view.config.layers} layers, ${view.config.heads} heads, vocab ${view.config.vocab} (Vp ${paddedVocab(view.config.vocab)}), ctx ${view.config.ctx}; ${cap} positions per chunk (${mb(cap * floatsPerPosition(view.config) * 4)} of activations)${perToken ? "; per-token outputs" : ""}`,
  "",
  "| case | sequences | scored tokens | submissions | dispatches before → after (all) | host → device before → after | device → host | modelled kernel traffic before → after (all) |",
  "|---|---|---|---|---|---|---|---|"
]
for (const c of CASES.filter((x) => wanted.includes(x.key))) {
  const { rows } = await caseBatch(c)
  const tokens = rows.reduce((s, r) => s + r.scored, 0)
  const before = planStats(view.config, cap, rows, { fuse: "none", perToken, fullIds: true })
  const after = planStats(view.config, cap, rows, { fuse: "epilogues", perToken })
  const all = planStats(view.config, cap, rows, { fuse: "all", perToken })
  if (json) console.log(JSON.stringify({ case: c.name, sequences: rows.length, tokens, cap, perToken, before, after, all }))
  lines.push(
    `| ${c.name} | ${rows.length.toLocaleString("en")} | ${tokens.toLocaleString("en")} | ${after.submissions} | ${before.dispatches} → ${after.dispatches} (${all.dispatches}) | ${mb(before.uploadBytes)} → ${mb(after.uploadBytes)} | ${mb(after.readbackBytes)} | ${mb(before.kernelBytes)} → ${mb(after.kernelBytes)} (${mb(all.kernelBytes)}) |`
  )
}
if (!json) console.log(lines.join("\n"))
