import { describe, expect, test } from "bun:test"
import { Cause, Exit } from "effect"
import { runIdOf } from "../../core/results/store.ts"
import { BASE_SECONDS_PER_STEP, BY_WARM_START, costKey, estimateGridSeconds, estimateRunSeconds, estimateSweepSeconds, sftSeconds } from "../../core/sweep/estimate.ts"
import { grid, gridExit, smallSpec } from "./helpers.ts"

describe("grid expansion", () => {
  test("Cartesian product of RESOLVED configs: full ids, every default; ids are their content hashes", () => {
    const runs = grid(smallSpec())
    expect(runs.length).toBe(2 * 3 * 2)
    expect(new Set(runs.map((r) => r.runId)).size).toBe(runs.length)
    for (const r of runs) {
      expect(runIdOf(r.config).runId).toBe(r.runId)
      expect(r.config.steps).toBe(12)
      expect(r.config.train.evalEvery).toBe(4)
      expect(r.config.P).toBe(4)
      // Resolved: ids in full, the trainer's defaults filled in.
      expect(r.config.algo).toBe("algorithms/grpo")
      expect(r.config.policy).toBe("sweep-fixture/fake-policy")
      expect(r.config.lr).toBe(1e-4)
      expect(r.config.train.entropyCoef).toBe(0.001)
      expect(r.config.train.minibatchTrajectories).toBe(32)
    }
    // Seeds outermost, filters innermost.
    expect(runs.slice(0, 3).map((r) => r.config.filter)).toEqual(["filters/none", "filters/top-p", "filters/random"])
    expect(runs.slice(0, 6).every((r) => r.config.seed === 1)).toBe(true)
    expect(runs[1]!.config.filterOptions).toMatchObject({ p: 0.9, includeZero: false })
    expect(runs[0]!.config.env).toBe("envs/frozenlake-v1")
  })

  test("every axis reaches the config; the same spec gives the same ids; spellings of one setting share a run", () => {
    const spec = smallSpec({
      axes: {
        env: [{ id: "frozenlake", options: { successRate: 0.8 } }],
        algo: ["grpo", { id: "ppo", options: { clipLow: 0.1 } }],
        filter: ["none"],
        seeds: [3],
        PG: [
          { P: 8, G: 16 },
          { P: 32, G: 4 }
        ],
        lr: [1e-4, 1e-3],
        model: ["tiny"],
        train: [
          { label: "kl=0", set: { klCoef: 0 } },
          { label: "kl=0.1", set: { klCoef: 0.1 } }
        ]
      },
      fixed: { policy: "fake-policy", train: { sftSteps: 7 } }
    })
    const runs = grid(spec)
    expect(runs.length).toBe(2 * 2 * 2 * 2)
    const r = runs.find((x) => x.config.algo === "algorithms/ppo" && x.config.P === 32 && x.config.lr === 1e-3 && x.config.train.klCoef === 0.1)!
    expect(r.config.envOptions).toMatchObject({ successRate: 0.8 })
    expect(r.config.algoOptions).toMatchObject({ clipLow: 0.1 })
    expect(r.config.G).toBe(4)
    expect(r.config.seed).toBe(3)
    expect(r.config.policyOptions).toEqual({ preset: "tiny" })
    expect(r.config.train).toMatchObject({ sftSteps: 7, evalEvery: 4, klCoef: 0.1 })
    expect(r.label).toContain("32x4")
    expect(r.label).toContain("kl=0.1")
    expect(grid(spec).map((x) => x.runId)).toEqual(runs.map((x) => x.runId))
    // "frozenlake" and "envs/frozenlake-v1", a default written out or left out: the same run.
    const a = grid(smallSpec({ axes: { env: ["frozenlake"], filter: ["none"], seeds: [1] } }))
    const b = grid(smallSpec({ axes: { env: [{ id: "envs/frozenlake-v1", options: { successRate: 1 } }], filter: ["filters/none"], seeds: [1] } }))
    expect(b[0]!.runId).toBe(a[0]!.runId)
  })

  test("duplicate combinations collapse to one run", () => {
    expect(grid(smallSpec({ axes: { env: ["frozenlake", "frozenlake"], seeds: [1, 1] } })).length).toBe(1)
  })

  test("ids, and options at every depth, are checked against the registry with the nearest key named", () => {
    const message = (input: unknown): string => {
      const exit = gridExit(input)
      return Exit.isFailure(exit) ? String((Cause.squash(exit.cause) as Error).message) : "(no error)"
    }
    expect(message(smallSpec({ axes: { env: ["frozenlake"], filter: ["top-q"] } }))).toContain('unknown filter "top-q"')
    expect(message(smallSpec({ axes: { env: [{ id: "frozenlake", options: { successRate: 3 } }] } }))).toContain("envOptions")
    expect(message(smallSpec({ axes: { env: [{ id: "frozenlake", options: { succesRate: 0.8 } }] } }))).toContain("envOptions.succesRate: unknown option; did you mean successRate?")
    expect(message(smallSpec({ axes: { env: ["frozenlake"], filter: [{ id: "top-p", options: { pp: 0.9 } }] } }))).toContain("filterOptions.pp: unknown option; did you mean p?")
    expect(message(smallSpec({ fixed: { policy: "fake-policy", train: { evalEvry: 5 } } }))).toContain("train.evalEvry: unknown option; did you mean evalEvery?")
    expect(message(smallSpec({ axes: { env: ["frozenlake"], algo: [{ id: "ppo", options: { clipHihg: 0.3 } }] } }))).toContain("algoOptions.clipHihg: unknown option; did you mean clipHigh?")
  })

  test("estimates scale with steps and spread over workers", () => {
    const [a] = grid(smallSpec())
    const t1 = estimateRunSeconds(a!.config)
    expect(estimateRunSeconds({ ...a!.config, steps: 24 })).toBeGreaterThan(t1)
    const withSft = { ...a!.config, train: { ...(a!.config.train as object), sftSteps: 100 } }
    const [first, second] = estimateGridSeconds([withSft, { ...withSft, filter: "top-p" }])
    // the SFT warm start is charged once per cache key
    expect(first! - second!).toBeCloseTo(sftSeconds(withSft))
    expect(sftSeconds(withSft)).toBeGreaterThan(0)
    expect(estimateGridSeconds([withSft, { ...withSft, seed: 99 }])[1]).toBeCloseTo(first!)
    expect(estimateSweepSeconds([10, 10, 10, 10], 2)).toBe(20)
    expect(estimateSweepSeconds([30, 10, 10, 10], 2)).toBe(30)
  })

  test("a headroom warm start and WebShop v2 are costed by their own measured figures", () => {
    const [a] = grid(smallSpec())
    const base = { ...a!.config, env: "envs/sokoban-v1", P: 8, G: 8, steps: 10 }
    const headroom = { ...base, train: { ...(base.train as object), warmStart: "sokoban-tiny-headroom@3aa245c18a87" } }
    expect(costKey(base)).toBeUndefined()
    expect(costKey(headroom)).toBe("sokoban-tiny-headroom")
    // Ten steps at P·G = 64 differ by ten times the difference of the two step figures (and the validation episodes).
    expect(estimateRunSeconds(headroom)).toBeGreaterThan(estimateRunSeconds(base) + 10 * (BY_WARM_START["sokoban-tiny-headroom"]!.step - BASE_SECONDS_PER_STEP.sokoban!) - 1e-9)
    expect(costKey({ ...base, env: "envs/webshop-v2" })).toBe("webshop-v2")
    expect(costKey({ ...base, env: "envs/webshop-v1" })).toBeUndefined()
    // A regime of its own (the collapse track's rate) only at that lr; another lr keeps the start's figure.
    const fl = { ...base, env: "envs/frozenlake-v1", train: { warmStart: "frozenlake-tiny-headroom@9f" } }
    expect(costKey({ ...fl, lr: 1e-3 })).toBe("frozenlake-tiny-headroom@lr=0.001")
    expect(costKey({ ...fl, lr: 2e-4 })).toBe("frozenlake-tiny-headroom")
  })
})

describe("per-env recipes and the noise floor", () => {
  test("an env choice's `set` reaches only that env's runs, over fixed and the lr axis; a typo in it is refused by name", () => {
    const runs = grid(
      smallSpec({
        axes: { env: ["frozenlake", { id: "sokoban", set: { lr: 3e-5, "train.entropyCoef": 0, historyTurns: 3 } }], filter: ["none"], seeds: [1], lr: [1e-3] }
      })
    )
    const fl = runs.find((r) => r.config.env === "envs/frozenlake-v1")!
    const sk = runs.find((r) => r.config.env === "envs/sokoban-v1")!
    expect(fl.config.lr).toBe(1e-3)
    expect(fl.config.train.entropyCoef).toBe(0.001)
    expect(sk.config.lr).toBe(3e-5)
    expect(sk.config.train.entropyCoef).toBe(0)
    expect(sk.config.train.historyTurns).toBe(3)
    expect(sk.label).toContain("lr=0.00003")
    const bad = gridExit(smallSpec({ axes: { env: [{ id: "sokoban", set: { entropyCoeff: 0 } }], seeds: [1] } }))
    expect(Exit.isFailure(bad)).toBe(true)
    if (Exit.isFailure(bad)) expect(String(Cause.squash(bad.cause))).toMatch(/entropyCoeff.*entropyCoef/s)
  })

  test("noiseFloor adds, next to each none run only, the same run on sampling stream 1", () => {
    const runs = grid(smallSpec({ noiseFloor: true }))
    expect(runs.length).toBe(2 * 2 * 4)
    const floors = runs.filter((r) => r.config.train.samplingStream === 1)
    expect(floors.length).toBe(4)
    for (const f of floors) {
      expect(f.config.filter).toBe("filters/none")
      const twin = runs.find((r) => r.config.train.samplingStream === 0 && r.config.filter === "filters/none" && r.config.env === f.config.env && r.config.seed === f.config.seed)!
      expect({ ...twin.config, train: { ...twin.config.train, samplingStream: 1 } } as unknown).toEqual(f.config as unknown)
    }
  })
})
