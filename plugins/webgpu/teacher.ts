/**
 * Teacher forcing on the GPU (docs/decisions.md#issue-29): per training item its tokens' log-probs, entropies and
 * values, as the tinylm policy's `forward`/`score` give them (the same rows: layout.ts scoreRow
 * is policy.ts `row`; tokens past ctx − 1 are 0, as there). The trainer's old log-probs, PPO's
 * old values and the reference KL's log-probs run here under `train.teacherForcing: scorer`.
 */
import type { TokenForward, TrainItem } from "../../core/contracts/index.ts"
import type { GpuBackend } from "./backend.ts"
import { GpuFailure } from "./engine.ts"
import { scoreRow } from "./layout.ts"
import type { ModelView } from "./view.ts"

export const gpuForward = async (view: ModelView, backend: GpuBackend, items: ReadonlyArray<TrainItem>): Promise<TokenForward[]> => {
  const { ctx } = view.config
  const rows = items.map((it) => scoreRow(view.encodePrompt(it.prompt), it.tokens, ctx, view.sharePrefix))
  await backend.setWeights(view.config, view.params(), view.version())
  const s = await backend.score(rows, { tokenLogprobs: true })
  if (!s.tokens || !s.entropy || !s.values) throw new GpuFailure("validation", "webgpu: the backend returned no per-token outputs")
  return rows.map((r, i) => {
    const out = { logprobs: new Float32Array(r.total), entropy: new Float32Array(r.total), values: new Float32Array(r.total) }
    out.logprobs.set(s.tokens![i]!)
    out.entropy.set(s.entropy![i]!)
    out.values.set(s.values![i]!)
    for (const x of [out.logprobs, out.entropy, out.values]) {
      for (let k = 0; k < r.scored; k++) if (!Number.isFinite(x[k]!)) throw new GpuFailure("validation", `webgpu: a non-finite per-token output (${x[k]}) in item ${i}`)
    }
    return out
  })
}
