/**
 * `train.warmStart: auto` that fits no shipped warm start starts from scratch: the setup says so
 * when the env has shipped starts (fig9's slipped FrozenLake once ran from scratch silently).
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { resolveSetup } from "../../core/train/setup.ts"

const setupOf = (envOptions: Record<string, unknown>, train: Record<string, unknown> = {}) =>
  Effect.runSync(resolveSetup({ env: "frozenlake", envOptions, policy: "tinylm", algo: "grpo", steps: 1, train }).pipe(Effect.provide(registryLayerFrom([...builtinPlugins]))))

describe("warm start notice", () => {
  test("the shipped start's own options: it is used, no notice", () => {
    const s = setupOf({ successRate: 1 })
    expect(s.warmStart?.id).toContain("frozenlake-tiny")
    expect(s.warmStartNotice).toBeUndefined()
  })

  test("another slip under auto: no start, and a notice naming the shipped one and the fix", () => {
    const s = setupOf({ successRate: 0.5 })
    expect(s.warmStart).toBeUndefined()
    expect(s.config.train.warmStart).toBe("none")
    expect(s.warmStartNotice).toContain("frozenlake-tiny")
    expect(s.warmStartNotice).toContain("--set warmStart=<id>")
  })

  test("named explicitly, or none, or a fresh SFT: used as asked, no notice", () => {
    const named = setupOf({ successRate: 0.5 }, { warmStart: "frozenlake-tiny" })
    expect(String(named.config.train.warmStart)).toStartWith("frozenlake-tiny@")
    expect(named.warmStartNotice).toBeUndefined()
    expect(setupOf({ successRate: 0.5 }, { warmStart: "none" }).warmStartNotice).toBeUndefined()
    expect(setupOf({ successRate: 0.5 }, { sftSteps: 10 }).warmStartNotice).toBeUndefined()
  })
})
