import { describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runTraining } from "../../core/train/run.ts"
import { cfg, testPlugin } from "./fixtures.ts"

const tmp = () => mkdtempSync(join(tmpdir(), "ragen-train-"))
const quiet = { plugins: [testPlugin], onLog: () => {} }
const metrics = (dir: string) =>
  readFileSync(join(dir, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => {
    const x = JSON.parse(l)
    for (const k of Object.keys(x)) if (k.startsWith("perf/")) delete x[k]
    return x
  })

describe("training loop on a bandit with a tabular policy", () => {
  for (const algo of ["grpo", "ppo", "dapo"]) {
    test(`${algo} raises success within 20 steps`, async () => {
      const out = tmp()
      const s = await runTraining(cfg({ algo }), { outDir: out, ...quiet })
      expect(s.status).toBe("complete")
      const lines = metrics(join(out, s.runId))
      const v0 = lines[0]["val/success@0.5"]
      expect(s.finalValSuccess!).toBeGreaterThan(v0 + 0.3)
      expect(s.finalValSuccess!).toBeGreaterThan(0.8)
      expect(lines.at(-1)["train/optimizer_steps"]).toBeGreaterThan(0)
    })
  }

  test("same config and seed ⇒ identical metrics; resume after a stop ⇒ identical to uninterrupted", async () => {
    const a = tmp(), b = tmp(), c = tmp()
    const config = cfg({ steps: 12 }, { checkpointEvery: 4 })
    const sa = await runTraining(config, { outDir: a, ...quiet })
    const sb = await runTraining(config, { outDir: b, ...quiet })
    expect(metrics(join(b, sb.runId))).toEqual(metrics(join(a, sa.runId)))
    // Stop after step 6 (checkpointed there by the stop), then resume.
    const ctl = new AbortController()
    const stopped = await runTraining(config, {
      outDir: c,
      ...quiet,
      signal: ctl.signal,
      onProgress: (p) => {
        if (p.step === 6) ctl.abort()
      }
    })
    expect(stopped.status).toBe("stopped")
    expect(stopped.stepsDone).toBe(6)
    const resumed = await runTraining(config, { outDir: c, ...quiet, resume: true })
    expect(resumed.status).toBe("complete")
    expect(metrics(join(c, resumed.runId))).toEqual(metrics(join(a, sa.runId)))
    expect(resumed.final["val/success@0.5"]).toBe(sa.final["val/success@0.5"])
    // Running the same config again without --resume does not wipe the run: it is an error; --fresh starts over.
    await expect(runTraining(config, { outDir: a, ...quiet })).rejects.toMatchObject({ _tag: "UsageError", field: "--resume" })
    const again = await runTraining(config, { outDir: a, ...quiet, fresh: true })
    expect(metrics(join(a, again.runId))).toEqual(metrics(join(b, sb.runId)))
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
    const config = cfg({ steps: 12 }, { evalEvery: 4, collapse: { valThreshold: 2, valWarmup: 3 } })
    const s = await runTraining(config, { outDir: tmp(), plugins: [testPlugin], onLog: (l) => logs.push(l) })
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
