/**
 * How many of RL's training instances did the SFT warm start already see? The SFT's instances are
 * the first observations of the teacher episodes its turns came from (collectTeacherTurns, the
 * recipe's turn count); RL's are the training draws of run seeds 1..N over the steps (the
 * trainer's trainSlotSeeds and instance split). Both come from the "train" part, so where the
 * env's instance space is small RL trains largely on instances the start has memorised, and a
 * rise there need not carry over to validation's unseen ones (experiments/arithmetic-sft/README.md).
 * With --sample N, the shipped start answers N training instances the SFT saw, N it did not, and
 * N validation instances (one sample each at T = 0.5, the env's instructions in the prompt, the
 * first turn graded: meant for the one-turn envs, Countdown and MetaMathQA): memorisation shows as
 * seen well above unseen. With --groups G as well, the start samples G answers at T = 1 (RL's
 * rollout temperature) to each of those N unseen training instances: RL learns only from a group
 * whose answers disagree, so an instance answered wrong every time (a confident error) or right
 * every time gives it nothing (per template, for MetaMathQA).
 *
 *   bun experiments/arithmetic-sft/sft-instance-overlap.ts <warm-start id> [runSeeds=8] [steps=40] [--sample N [--groups G]]
 */
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { instanceOf, splitSeeds } from "../../core/env/instance-split.ts"
import { buildPrompt, parseResponse } from "../../core/prompt.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { derive } from "../../core/rng.ts"
import { trainSlotSeeds } from "../../core/train/instances.ts"
import { resolveSetup } from "../../core/train/setup.ts"
import { collectTeacherTurns } from "../../core/train/teacher-turns.ts"
import { teacherTurnOptions } from "../../core/train/warm-start.ts"
import { generateProblem } from "../../envs/metamathqa/problems.ts"
import { policyFromCheckpoint } from "../../plugins/tinylm/policy.ts"
import { settingsOf } from "../../plugins/tinylm/spec.ts"
import { VAL_SEED_START } from "../../plugins/tinylm/validate.ts"
import { recipeConfig } from "../../plugins/tinylm/warmstart-command.ts"
import { readManifest, toWarmStart } from "../../plugins/tinylm/warm-starts.ts"
import { RECIPES } from "../../plugins/tinylm/warmstarts/recipes.ts"

const argv = process.argv.slice(2)
const flag = (name: string): number => {
  const at = argv.indexOf(name)
  return at >= 0 ? Number(argv[at + 1]) : 0
}
const [sampleN, groupG] = [flag("--sample"), flag("--groups")]
const [idArg, seedsArg, stepsArg] = argv.filter((a, i) => !a.startsWith("--") && !argv[i - 1]?.startsWith("--"))
const recipe = RECIPES.find((r) => r.id === idArg)
const count = (n: number) => n >= 0 && Number.isInteger(n)
if (!recipe || !count(sampleN) || !count(groupG) || (groupG > 0 && sampleN === 0)) {
  console.error(`usage: bun experiments/arithmetic-sft/sft-instance-overlap.ts <warm-start id> [runSeeds=8] [steps=40] [--sample N [--groups G]]; ids: ${RECIPES.map((r) => r.id).join(", ")}`)
  process.exit(2)
}
const [runSeeds, steps] = [Number(seedsArg ?? 8), Number(stepsArg ?? 40)]
const resolve = (config: Parameters<typeof resolveSetup>[0]) => Effect.runPromise(resolveSetup(config).pipe(Effect.provide(registryLayerFrom(builtinPlugins))))
// The setup the build trains under (a staged recipe's later stage sees its first stage's turns), and a run's.
const s = await resolve(recipeConfig(recipe))
const setupOf = (seed: number) => resolve({ env: recipe.env, envOptions: recipe.envOptions, seed, steps, train: { diagEvery: 0 } })

const seen = new Set<string>()
let episodes = 0
await collectTeacherTurns(s.spec, s.envOptions, {
  ...teacherTurnOptions(s),
  onEpisode: (obs) => {
    episodes++
    seen.add(instanceOf(s.spec, obs))
  }
})

const env = s.spec.make(s.envOptions)
// MetaMathQA's generated problems come from 8 templates of very different instance counts.
const templateOf = (seed: number): string | undefined => (s.spec.id.startsWith("metamathqa") ? generateProblem(derive(seed, "metamathqa")).template : undefined)
const byTemplate = new Map<string, { draws: number; seen: number; val: number; valOk: number; wrong: number; mixed: number; right: number }>()
const row = (t: string) => byTemplate.get(t) ?? byTemplate.set(t, { draws: 0, seen: 0, val: 0, valOk: 0, wrong: 0, mixed: 0, right: 0 }).get(t)!
let draws = 0
let hits = 0
const distinct = new Set<string>()
for (let seed = 1; seed <= runSeeds; seed++) {
  const run = await setupOf(seed)
  for (let step = 1; step <= steps; step++) {
    for (const envSeed of await splitSeeds(run.spec, run.envOptions, trainSlotSeeds(run, step, 0, 1), "train")) {
      const key = instanceOf(run.spec, env.reset(envSeed))
      draws++
      distinct.add(key)
      if (seen.has(key)) hits++
      const t = templateOf(envSeed)
      if (t) {
        row(t).draws++
        if (seen.has(key)) row(t).seen++
      }
    }
  }
}
const pct = (x: number) => `${(100 * x).toFixed(1)}%`
console.log(`${idArg} (${s.spec.id}): SFT ${s.opts.sftTurns} turns from ${episodes} teacher episodes on ${seen.size} distinct training instances`)
console.log(`RL: ${draws} training draws (run seeds 1..${runSeeds} × ${steps} steps × P ${s.config.P}) on ${distinct.size} distinct instances; ${hits} (${pct(hits / draws)}) were SFT instances`)

if (sampleN > 0) {
  const entry = readManifest().warmstarts.find((w) => w.id === recipe.id)
  if (!entry) throw new Error(`${recipe.id} is not in the manifest: build it first (ragen-bench warmstart build ${recipe.id})`)
  const policy = await policyFromCheckpoint(toWarmStart(entry).path, settingsOf(s.policyOptions as never, 0, 0))
  // Training instances in order of fresh slot seeds, split by whether the SFT saw them.
  const seenSeeds: number[] = []
  const unseenSeeds: number[] = []
  for (let slot = 5_000_000; seenSeeds.length < sampleN || unseenSeeds.length < sampleN; slot++) {
    const [seed] = await splitSeeds(s.spec, s.envOptions, [slot], "train")
    const bucket = seen.has(instanceOf(s.spec, env.reset(seed!))) ? seenSeeds : unseenSeeds
    if (bucket.length < sampleN) bucket.push(seed!)
  }
  const valSeeds = await splitSeeds(
    s.spec,
    s.envOptions,
    Array.from({ length: sampleN }, (_, i) => VAL_SEED_START + i),
    "validation"
  )
  const successOf = async (seeds: number[], label: string) => {
    const prompts = seeds.map((seed) => buildPrompt({ instructions: s.rollout.instructions, observation: env.reset(seed) }))
    const cs = await policy.sample(prompts, { temperature: 0.5, topP: 1, minP: 0, maxTokens: s.opts.maxTokens }, derive(0, "overlap-sample", label))
    let ok = 0
    for (let i = 0; i < seeds.length; i++) {
      env.reset(seeds[i]!)
      const r = parseResponse(cs[i]!.text)
      const success = r.valid && env.step(r.action).info.success === true
      if (success) ok++
      const t = label === "validation" ? templateOf(seeds[i]!) : undefined
      if (t) {
        row(t).val++
        if (success) row(t).valOk++
      }
    }
    return ok / seeds.length
  }
  const [a, b, c] = [await successOf(seenSeeds, "seen"), await successOf(unseenSeeds, "unseen"), await successOf(valSeeds, "validation")]
  console.log(
    `${recipe.id} at T = 0.5, ${sampleN} instances each, first turn: training instances the SFT saw ${a.toFixed(3)}, training instances it did not ${b.toFixed(3)}, validation ${c.toFixed(3)}`
  )
  if (groupG > 0) {
    const prompts = unseenSeeds.flatMap((seed) => Array.from({ length: groupG }, () => buildPrompt({ instructions: s.rollout.instructions, observation: env.reset(seed) })))
    const cs = await policy.sample(prompts, { temperature: 1, topP: 1, minP: 0, maxTokens: s.opts.maxTokens }, derive(0, "overlap-groups"))
    const tally = { wrong: 0, mixed: 0, right: 0 }
    unseenSeeds.forEach((seed, i) => {
      let ok = 0
      for (let k = 0; k < groupG; k++) {
        env.reset(seed)
        const r = parseResponse(cs[i * groupG + k]!.text)
        if (r.valid && env.step(r.action).info.success === true) ok++
      }
      const kind = ok === 0 ? "wrong" : ok === groupG ? "right" : "mixed"
      tally[kind]++
      const t = templateOf(seed)
      if (t) row(t)[kind]++
    })
    console.log(`groups of ${groupG} at T = 1 on those ${sampleN} unseen training instances: all wrong ${tally.wrong}, mixed ${tally.mixed}, all right ${tally.right}`)
  }
}

if (byTemplate.size > 0) {
  // Each template's instance space, counted over env seeds (both parts).
  const SPACE_SEEDS = 200_000
  const space = new Map<string, Set<string>>()
  for (let seed = 0; seed < SPACE_SEEDS; seed++) {
    const p = generateProblem(derive(seed, "metamathqa"))
    ;(space.get(p.template) ?? space.set(p.template, new Set()).get(p.template)!).add(p.question)
  }
  const groups = groupG > 0 ? ` | unseen training groups of ${groupG} at T = 1: all wrong / mixed / all right` : ""
  console.log(`template | distinct instances in ${SPACE_SEEDS.toLocaleString("en")} seeds | RL draws | of them SFT instances${sampleN > 0 ? " | validation right" : ""}${groups}`)
  for (const [t, r] of [...byTemplate].sort((x, y) => y[1].seen / y[1].draws - x[1].seen / x[1].draws)) {
    const g = groupG > 0 ? ` | ${r.wrong} / ${r.mixed} / ${r.right}` : ""
    console.log(`${t} | ${space.get(t)?.size ?? 0} | ${r.draws} | ${pct(r.seen / r.draws)}${sampleN > 0 ? ` | ${r.valOk} / ${r.val}` : ""}${g}`)
  }
}
