/**
 * docs/decisions.md#issue-42: `eval --env E` without --policy or --checkpoint evaluates E's shipped
 * warm start (as `serve --env E` serves it), on held-out validation instances as the trainer
 * validates, so it reaches the success the warm start's manifest records; `--checkpoint` takes
 * the warm-start ids `ragen-bench list warmstarts` prints (with or without the plugin prefix) as
 * well as files; an untrained model only with --untrained. Runs record a warm start by id and
 * hash, never by its file's path.
 */
import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { root, runCli } from "../helpers/cli.ts"
import { tempDir } from "../sweep/helpers.ts"

interface Summary {
  readonly runId: string
  readonly agent: string
  readonly success: { readonly mean: number; readonly lo: number; readonly hi: number }
}

const manifest = JSON.parse(readFileSync(join(root, "plugins", "tinylm", "warmstarts", "manifest.json"), "utf8")) as {
  warmstarts: Array<{ id: string; sha256: string; validation: { seeds: number; success: Record<string, number> } }>
}
const frozenlakeTiny = manifest.warmstarts.find((w) => w.id === "frozenlake-tiny")!
const ref = `frozenlake-tiny@${frozenlakeTiny.sha256.slice(0, 12)}`

const evalJson = (args: ReadonlyArray<string>, out: string): { summary: Summary; config: Record<string, any> } => {
  const r = runCli(["eval", "--env", "frozenlake", ...args, "--out", out, "--json"], { timeoutMs: 180_000 })
  expect(r.stderr).toBe("")
  expect(r.code).toBe(0)
  const summary = JSON.parse(r.stdout) as Summary
  return { summary, config: JSON.parse(readFileSync(join(out, summary.runId, "config.json"), "utf8")) }
}

describe("eval's default model", () => {
  test("without --policy: the env's shipped warm start, recorded by id and hash, at the success its manifest records", () => {
    const out = tempDir("eval-default")
    const { summary, config } = evalJson(["--episodes", "128"], out)
    expect(summary.agent).toBe(`tinylm ${ref}`)
    expect(config.config.policy).toBe("tinylm/tinylm")
    expect(config.config.policyOptions).toEqual({ warmStart: ref })
    expect(config.config.instances).toBe("validation")
    expect(JSON.stringify(config)).not.toContain(".safetensors")
    // the manifest's validation success at T = 0.5 (256 held-out instances) lies in eval's 95% interval
    const recorded = frozenlakeTiny.validation.success["0.5"]!
    expect(recorded).toBeGreaterThan(0.5)
    expect(summary.success.lo).toBeLessThanOrEqual(recorded)
    expect(summary.success.hi).toBeGreaterThanOrEqual(recorded)
    // --checkpoint with the id `list warmstarts` prints (with or without its plugin) is the same run
    const byId = evalJson(["--episodes", "128", "--checkpoint", "frozenlake-tiny"], tempDir("eval-id"))
    expect(byId.summary.runId).toBe(summary.runId)
    expect(byId.summary.success).toEqual(summary.success)
    const byFullId = evalJson(["--episodes", "128", "--checkpoint", `tinylm/${ref}`], tempDir("eval-full-id"))
    expect(byFullId.summary.runId).toBe(summary.runId)
  }, 300_000)

  test("--checkpoint FILE still names a file; --untrained an untrained model", () => {
    const file = join(root, "plugins", "tinylm", "warmstarts", "frozenlake-tiny.safetensors")
    const byFile = evalJson(["--episodes", "4", "--checkpoint", file], tempDir("eval-file"))
    expect(byFile.summary.agent).toBe("tinylm frozenlake-tiny.safetensors")
    const untrained = evalJson(["--episodes", "4", "--max-turns", "2", "--untrained"], tempDir("eval-untrained"))
    expect(untrained.summary.agent).toBe("tinylm (untrained)")
  }, 180_000)

  test("a warm-start id that is unknown, for another env or beside --untrained is a one-line error", () => {
    const typo = runCli(["eval", "--env", "frozenlake", "--checkpoint", "frozenlak-tiny", "--out", tempDir("eval-typo")])
    expect(typo.code).toBe(2)
    expect(typo.stderr.trim().split("\n")).toHaveLength(1)
    expect(typo.stderr).toContain("--checkpoint frozenlak-tiny: no such file, and no warm start has that id (shipped for envs/frozenlake-v1: frozenlake-tiny,")
    const other = runCli(["eval", "--env", "frozenlake", "--checkpoint", "sokoban-tiny", "--out", tempDir("eval-other")])
    expect(other.code).toBe(2)
    expect(other.stderr.trim()).toBe("error: warm start sokoban-tiny was trained for envs/sokoban-v1, not envs/frozenlake-v1; pass --env sokoban or another warm start")
    const both = runCli(["eval", "--env", "frozenlake", "--checkpoint", "frozenlake-tiny", "--untrained", "--out", tempDir("eval-both")])
    expect(both.code).toBe(2)
    expect(both.stderr.trim()).toBe("error: --checkpoint and --untrained are two models; keep one of them")
  }, 120_000)

  test("diagnose --help does not call --no-mi on by default", () => {
    const r = runCli(["diagnose", "--help"])
    expect(r.code).toBe(0)
    const line = r.stdout.split("\n").find((l) => l.includes("--no-mi"))!
    expect(line).toBeDefined()
    expect(line).not.toContain("default")
  }, 60_000)
})
