/**
 * Do an env's training sequences fit the tiny preset's 128-token context? Per env, the tinylm
 * tokenizer's length of prompt + completion over teacher turns built as the trainer builds them
 * (its default prompt shape: context, instructions), the median, p95, the maximum and the share over 128.
 *
 *   node_modules/.bin/bun tools/prompt-lengths.ts [--turns 400]
 */
import { Effect } from "effect"
import { builtinPlugins } from "../builtins.ts"
import { registryLayerFrom } from "../core/registry.ts"
import { resolveSetup } from "../core/train/setup.ts"
import { collectTeacherTurns } from "../core/train/teacher-turns.ts"
import { Tokenizer } from "../plugins/tinylm/tokenizer.ts"

const at = process.argv.indexOf("--turns")
const turns = at > 0 ? Number(process.argv[at + 1]) : 400
const CTX = 128
console.log(`| env | context | median tokens | p95 | max | share over ${CTX} |`)
console.log("|---|---|---|---|---|---|")
for (const env of ["frozenlake", "sokoban", "countdown", "metamathqa", "searchqa", "webshop-v1", "webshop-v2"]) {
  const s = await Effect.runPromise(resolveSetup({ env, train: { diagEvery: 0 } }).pipe(Effect.provide(registryLayerFrom(builtinPlugins))))
  const tok = new Tokenizer(s.spec.vocabulary(s.envOptions))
  const ts = await collectTeacherTurns(s.spec, s.envOptions, { turns, epsilon: 0, reasoningNoise: 0, seed: 1, instructions: s.rollout.instructions, instanceSplit: true })
  const lens = ts.map((t) => tok.encode(t.prompt).length + tok.encode(t.completion).length).sort((a, b) => a - b)
  const over = lens.filter((l) => l > CTX).length / lens.length
  const p95 = lens[Math.floor(lens.length * 0.95)]
  console.log(`| ${s.spec.id} | ${s.rollout.context} | ${lens[lens.length >> 1]} | ${p95} | ${lens.at(-1)} | ${over.toFixed(3)} |`)
}
