import { beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readCheckpoint } from "../../plugins/tinylm/policy.ts"
import { runCli } from "../helpers/cli.ts"

/** Largest absolute difference between two checkpoints' parameter tensors. */
const maxDiff = (a: string, b: string): number => {
  const x = readCheckpoint(a).file.tensors,
    y = readCheckpoint(b).file.tensors
  let d = 0
  for (const [name, t] of x) {
    if (name.startsWith("adam_")) continue
    const u = y.get(name)!.data
    for (let i = 0; i < t.data.length; i++) d = Math.max(d, Math.abs(t.data[i]! - u[i]!))
  }
  return d
}

describe("ragen-bench sft --init: continue from a checkpoint", () => {
  const dir = mkdtempSync(join(tmpdir(), "ragen-sft-init-"))
  const small = ["--env", "frozenlake", "--turns", "256", "--batch", "16", "--val-seeds", "0"]
  const ckpt = (out: string) => join(dir, out, "frozenlake-v1-tiny-s0.safetensors")
  // The checkpoint both tests continue from (or refuse to)
  beforeAll(() => {
    expect(runCli(["sft", ...small, "--steps", "3", "--out", join(dir, "a")]).code).toBe(0)
  }, 60_000)

  test("the continued run starts from the checkpoint's weights and step", () => {
    // With a vanishing lr one more step leaves the loaded weights where they were...
    const r = runCli(["sft", ...small, "--steps", "1", "--lr", "1e-12", "--init", ckpt("a"), "--out", join(dir, "b")])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`from ${ckpt("a")}`)
    expect(maxDiff(ckpt("a"), ckpt("b"))).toBeLessThan(1e-6)
    expect(readCheckpoint(ckpt("b")).step).toBe(readCheckpoint(ckpt("a")).step + 1)
    // ...where a fresh start is elsewhere.
    expect(runCli(["sft", ...small, "--steps", "1", "--lr", "1e-12", "--out", join(dir, "c")]).code).toBe(0)
    expect(maxDiff(ckpt("a"), ckpt("c"))).toBeGreaterThan(1e-3)
  }, 60_000)

  test("bad --init is a clear error before any training", () => {
    const missing = runCli(["sft", ...small, "--init", join(dir, "none.safetensors"), "--out", join(dir, "d")])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/--init .* does not exist/)
    const overwrite = runCli(["sft", ...small, "--init", ckpt("a"), "--out", join(dir, "a")])
    expect(overwrite.code).toBe(2)
    expect(overwrite.stderr).toMatch(/--out .* would overwrite the --init checkpoint/)
    const preset = runCli(["sft", ...small, "--preset", "small", "--init", ckpt("a"), "--out", join(dir, "e")])
    expect(preset.code).toBe(2)
    expect(preset.stderr).toMatch(/ctx = 128 but this policy has ctx = 256/)
    for (const r of [missing, overwrite, preset]) expect(r.stderr).not.toMatch(/\n\s+at /)
  }, 60_000)
})
