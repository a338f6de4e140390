/** Shared by the sweep and leaderboard tests: temp folders, a small spec, the CLI with the fake trainer. */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { root } from "../helpers/cli.ts"

export const fixturePlugin = join(root, "test", "fixtures", "plugins", "sweep-policy.ts")

export const tempDir = (label: string): string => mkdtempSync(join(tmpdir(), `ragen-${label}-`))

export const smallSpec = (over: Record<string, unknown> = {}) => ({
  name: "small",
  axes: {
    env: ["frozenlake", { id: "sokoban" }],
    filter: ["none", { id: "top-p", options: { p: 0.9 } }, { id: "random", options: { like: "top-p", p: 0.9 } }],
    seeds: [1, 2]
  },
  fixed: { policy: "fake-policy", P: 4, G: 4 },
  budget: { steps: 12, evalEvery: 4 },
  ...over
})

export const writeSpec = (dir: string, spec: unknown, name = "spec.json"): string => {
  const p = join(dir, name)
  writeFileSync(p, JSON.stringify(spec, null, 2))
  return p
}

export const fakeEnv = (stepMs = 1): Record<string, string> => ({ RAGEN_SWEEP_FAKE_TRAIN: "1", RAGEN_SWEEP_FAKE_STEP_MS: String(stepMs) })
