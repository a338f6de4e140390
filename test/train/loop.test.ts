import { builtinPlugins } from "../../builtins.ts"
import { describe, expect, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runTraining } from "../../core/train/run.ts"
import { metricsWithoutPerf, runStoppedAfter } from "../helpers/run-metrics.ts"
import { cfg, testPlugin } from "./fixtures.ts"

const tmp = () => mkdtempSync(join(tmpdir(), "ragen-train-"))
const quiet = { plugins: [...builtinPlugins, testPlugin], onLog: () => {} }

describe("training loop on a bandit (tabular policy, and the real tinylm)", () => {
  for (const algo of ["grpo", "ppo", "dapo"]) {
    test(`${algo} raises success within 20 steps`, async () => {
      const out = tmp()
      const s = await runTraining(cfg({ algo }), { outDir: out, ...quiet })
      expect(s.status).toBe("complete")
      const lines = metricsWithoutPerf(join(out, s.runId))
      const v0 = lines[0]!["val/success@0.5"]
      expect(s.finalValSuccess!).toBeGreaterThan(v0 + 0.3)
      expect(s.finalValSuccess!).toBeGreaterThan(0.8)
      expect(lines.at(-1)!["train/optimizer_steps"]).toBeGreaterThan(0)
    })
  }

  // The same learning check with the real embedded policy (a d 16, 1-layer tinylm): SFT on the
  // bandit teacher's traces with action noise ε = 0.5 leaves the action half random at T = 1;
  // each algorithm must raise validation success at T = 1 within 40 steps.
  for (const algo of ["grpo", "ppo", "dapo"]) {
    test(`${algo} with tinylm raises success at T = 1 from its SFT start within 40 steps`, async () => {
      const out = tmp()
      const config = cfg(
        { algo, policy: "tinylm", policyOptions: { ctx: 32, d: 16, layers: 1, heads: 2 }, P: 8, G: 8, steps: 40, lr: 3e-3 },
        { valSeeds: 64, diagEvery: 0, checkpointEvery: 0, sftSteps: 300, sftTurns: 2048, teacherEpsilon: 0.5 }
      )
      const s = await runTraining(config, { outDir: out, ...quiet })
      expect(s.status).toBe("complete")
      const val = metricsWithoutPerf(join(out, s.runId))
        .filter((m) => m["val/success@1.0"] !== undefined)
        .map((m) => m["val/success@1.0"] as number)
      console.log(`${algo} + tinylm, val success@1.0 every 10 steps: ${val.map((v) => v.toFixed(2)).join(" ")}`)
      expect(val[0]!).toBeLessThan(0.85)
      expect(val.at(-1)!).toBeGreaterThan(val[0]! + 0.12)
    }, 60000)
  }

  test("same config and seed ⇒ identical metrics; resume after a stop ⇒ identical to uninterrupted", async () => {
    const a = tmp(),
      b = tmp(),
      c = tmp()
    const config = cfg({ steps: 12 }, { checkpointEvery: 4 })
    const sa = await runTraining(config, { outDir: a, ...quiet })
    const sb = await runTraining(config, { outDir: b, ...quiet })
    expect(metricsWithoutPerf(join(b, sb.runId))).toEqual(metricsWithoutPerf(join(a, sa.runId)))
    // Stop after step 6 (checkpointed there by the stop), then resume.
    const stopped = await runStoppedAfter(config, { outDir: c, ...quiet }, 6)
    expect(stopped.status).toBe("stopped")
    expect(stopped.stepsDone).toBe(6)
    const resumed = await runTraining(config, { outDir: c, ...quiet, resume: true })
    expect(resumed.status).toBe("complete")
    expect(metricsWithoutPerf(join(c, resumed.runId))).toEqual(metricsWithoutPerf(join(a, sa.runId)))
    expect(resumed.final["val/success@0.5"]).toBe(sa.final["val/success@0.5"])
    // Running the same config again without --resume does not wipe the run: it is an error; --fresh starts over.
    await expect(runTraining(config, { outDir: a, ...quiet })).rejects.toMatchObject({ _tag: "UsageError", field: "--resume" })
    const again = await runTraining(config, { outDir: a, ...quiet, fresh: true })
    expect(metricsWithoutPerf(join(a, again.runId))).toEqual(metricsWithoutPerf(join(b, sb.runId)))
  })

  test("a stop from a timer (Ctrl-C, a sweep's stop message) is seen between steps: the loop yields to the event loop", async () => {
    const ctl = new AbortController()
    setTimeout(() => ctl.abort(), 30)
    const s = await runTraining(cfg({ steps: 5000 }, { evalEvery: 0 }), { outDir: tmp(), ...quiet, signal: ctl.signal })
    expect(s.status).toBe("stopped")
    expect(s.stepsDone).toBeLessThan(5000)
  })

  test("an early-stopping rule ends the run complete at that step, with the reason; the warning is logged per step", async () => {
    const logs: string[] = []
    // success can never reach 2: the low-validation rule fires at the first evaluation after the warm-up
    const config = cfg({ steps: 12 }, { evalEvery: 4, collapse: { valThreshold: 2, valWarmup: 3, valPatience: 1 } })
    const s = await runTraining(config, { outDir: tmp(), plugins: [...builtinPlugins, testPlugin], onLog: (l) => logs.push(l) })
    expect(s.status).toBe("complete")
    expect(s.stepsDone).toBe(4)
    expect(s.earlyStop).toContain("low validation success")
    expect(logs.some((l) => l.includes("early stop"))).toBe(true)
    expect(s.final["collapse/warning"]).toBeDefined()
  })

  test("bad input is a UsageError before any work", async () => {
    await expect(runTraining(cfg({ G: 1 }), { outDir: tmp(), ...quiet })).rejects.toMatchObject({ _tag: "UsageError" })
    await expect(runTraining(cfg({ filter: "nope" }), { outDir: tmp(), ...quiet })).rejects.toMatchObject({ _tag: "UnknownIdError" })
    await expect(runTraining(cfg({ algo: "nope" }), { outDir: tmp(), ...quiet })).rejects.toMatchObject({ _tag: "UnknownIdError" })
  })
})
