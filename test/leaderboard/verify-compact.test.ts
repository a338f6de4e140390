/**
 * `leaderboard verify` on what people submit (issue 40): compact folders are re-run and compared,
 * a plugin that is not loaded and a different kernel build are named as such (with the flag or
 * command that fixes it), nothing checked is exit 1, and marks go to the builder's folder, tied
 * to each record's content hash, never into the submitted folder. Fixtures are built here with
 * the fake trainer (a sweep, then `results compact`).
 */
import { beforeAll, describe, expect, test } from "bun:test"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { MARKS_FILE, MARKS_FORMAT } from "../../plugins/leaderboard/verify-marks.ts"
import { kernelsMismatch, recordedKernelsEnv } from "../../plugins/leaderboard/verify.ts"
import { submitSection } from "../../plugins/leaderboard/submit.ts"
import { runCli } from "../helpers/cli.ts"
import { fakeEnv, fixturePlugin, smallSpec, tempDir, writeSpec } from "../sweep/helpers.ts"

const env = fakeEnv(0)
let dir = ""
let records = ""

const snapshot = (d: string): string =>
  JSON.stringify(
    readdirSync(d)
      .sort()
      .map((n) => [n, readFileSync(join(d, n), "utf8")])
  )
const copyRecords = (name: string): string => {
  const to = join(dir, name)
  mkdirSync(to)
  for (const n of readdirSync(records)) writeFileSync(join(to, n), readFileSync(join(records, n)))
  return to
}
const edit = (folder: string, f: (r: any) => void): string => {
  const name = readdirSync(folder).sort()[0]!
  const r = JSON.parse(readFileSync(join(folder, name), "utf8"))
  f(r)
  writeFileSync(join(folder, name), JSON.stringify(r))
  return name
}

beforeAll(() => {
  dir = tempDir("verify-compact")
  const spec = writeSpec(dir, smallSpec({ axes: { env: ["frozenlake"], filter: ["none", { id: "top-p" }], seeds: [1] }, budget: { steps: 6, evalEvery: 3 } }))
  const results = join(dir, "results")
  records = join(dir, "records")
  expect(runCli(["sweep", spec, "--plugin", fixturePlugin, "--out", results, "--leaderboard", join(dir, "site"), "--workers", "1"], { env }).code).toBe(0)
  expect(runCli(["results", "compact", results, "--out", records], { env }).code).toBe(0)
  expect(readdirSync(records).filter((n) => n.endsWith(".json"))).toHaveLength(2)
}, 120_000)

describe("leaderboard verify on compact records", () => {
  test("re-runs and matches; marks go to --marks, keyed by content hash; the submitted folder is untouched", () => {
    const before = snapshot(records)
    const marks = join(dir, "marks")
    const r = runCli(["leaderboard", "verify", records, "--sample", "2", "--plugin", fixturePlugin, "--marks", marks], { env })
    expect(r.stdout).toContain("2/2 re-run(s) matched")
    expect(r.stdout).toContain("curves and the budget sums identical")
    expect(r.code).toBe(0)
    expect(snapshot(records)).toBe(before)
    const file = JSON.parse(readFileSync(join(marks, MARKS_FILE), "utf8"))
    expect(file.format).toBe(MARKS_FORMAT)
    const entries = Object.entries(file.marks) as Array<[string, any]>
    expect(entries).toHaveLength(2)
    for (const [hash, m] of entries) {
      expect(hash).toMatch(/^[0-9a-f]{64}$/)
      expect(m.ok).toBe(true)
      expect(readdirSync(records)).toContain(`${m.runId}.json`)
    }
  }, 120_000)

  test("a plugin that is not loaded is named as such (not 'An error occurred in Effect.tryPromise'); nothing checked is exit 1", () => {
    const r = runCli(["leaderboard", "verify", records, "--sample", "1", "--marks", join(dir, "marks-noplugin")], { env })
    expect(r.stdout).toContain("NOT CHECKED")
    expect(r.stdout).toContain('plugin "sweep-fixture" not loaded')
    expect(r.stdout).toContain("--plugin")
    expect(r.stdout).not.toContain("Effect.tryPromise")
    expect(r.stdout).toContain("nothing could be checked")
    expect(r.code).toBe(1)
  }, 60_000)

  test("a tampered curve is a MISMATCH naming the curve and step, marked not ok under the tampered content's hash", () => {
    const bad = copyRecords("tampered")
    const name = edit(bad, (r) => {
      r.curves["val/success@0.5"][1] = 0.999
    })
    const marks = join(dir, "marks-tampered")
    const r = runCli(["leaderboard", "verify", bad, "--sample", "2", "--plugin", fixturePlugin, "--marks", marks], { env })
    expect(r.code).toBe(1)
    expect(r.stdout).toContain(`MISMATCH  ${name.replace(/\.json$/, "")}: curve val/success@0.5 at step 3: recorded 0.999`)
    expect(r.stdout).toContain("1/2 re-run(s) matched")
    const file = JSON.parse(readFileSync(join(marks, MARKS_FILE), "utf8"))
    expect(Object.values(file.marks).filter((m: any) => !m.ok)).toHaveLength(1)
  }, 60_000)

  test("a different kernel build is named as such, with the command that re-runs on the recorded one", () => {
    const other = copyRecords("other-kernels")
    edit(other, (r) => {
      // A family no build here computes: whatever kernels this process notes, they are another family's.
      r.run.runtime.notes = { kernels: "tinylm:native", kernelsIsa: "avx2", numericFamily: "elsewhere-v9" }
      r.curves["val/success@0.5"][1] = 0.999
    })
    const r = runCli(["leaderboard", "verify", other, "--sample", "1", "--plugin", fixturePlugin, "--marks", join(dir, "marks-kernels")], { env })
    expect(r.stdout).toMatch(/another kernel build ran here \(recorded (numeric family elsewhere-v9 \()?tinylm:native avx2/)
    expect(r.stdout).toContain(`RAGEN_KERNELS=native RAGEN_NATIVE_ISA=avx2 ragen-bench leaderboard verify ${other} --sample 1 --plugin ${fixturePlugin}`)
    expect(r.stdout).not.toContain("MISMATCH")
    expect(r.code).toBe(1)
  }, 60_000)

  test("kernels in the same numeric family agree; another family is named; old records re-run on their family's build", () => {
    expect(kernelsMismatch({ kernels: "tinylm:native", kernelsIsa: "avx512", numericFamily: "fma8-v1" }, { kernels: "tinylm:native", kernelsIsa: "avx2", numericFamily: "fma8-v1" })).toBe("")
    // A record from before the family note: its avx2 build is fma8-v1, which today's avx512 computes too.
    expect(kernelsMismatch({ kernels: "tinylm:native", kernelsIsa: "avx2" }, { kernels: "tinylm:native", kernelsIsa: "avx512", numericFamily: "fma8-v1" })).toBe("")
    expect(kernelsMismatch({ kernels: "tinylm:native", kernelsIsa: "avx512" }, { kernels: "tinylm:native", kernelsIsa: "avx512", numericFamily: "fma8-v1" })).toContain(
      "recorded numeric family avx512-v0"
    )
    expect(kernelsMismatch({ numericFamily: "cnr-1" }, { numericFamily: "cnr-2" })).toContain("numeric family cnr-1")
    expect(recordedKernelsEnv({ kernels: "tinylm:native", kernelsIsa: "avx512" })).toBe("RAGEN_KERNELS=native RAGEN_NATIVE_ISA=avx512v0 ")
    expect(recordedKernelsEnv({ kernels: "tinylm:native", kernelsIsa: "avx2" })).toBe("RAGEN_KERNELS=native RAGEN_NATIVE_ISA=avx2 ")
    expect(recordedKernelsEnv(undefined)).toBe("")
  })

  test("a folder with nothing to re-run is exit 1, not '0/0 matched' and exit 0", () => {
    const empty = join(dir, "empty")
    mkdirSync(empty)
    writeFileSync(join(empty, "notes.txt"), "hello")
    const r = runCli(["leaderboard", "verify", empty, "--marks", join(dir, "marks-empty")], { env })
    expect(r.stdout).toContain("0/0 re-run(s) matched (no complete run folder or compact record found)")
    expect(r.code).toBe(1)
    expect(readdirSync(empty)).toEqual(["notes.txt"])
  }, 60_000)

  test("--marks inside the verified folder is refused (exit 2), nothing written", () => {
    const before = snapshot(records)
    const r = runCli(["leaderboard", "verify", records, "--plugin", fixturePlugin, "--marks", join(records, "marks")], { env })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("never go into what was submitted")
    expect(snapshot(records)).toBe(before)
  }, 60_000)

  test("the page's Submit section gives the whole verify command, --plugin included, and it works as written (and the build shows its mark)", () => {
    const text = submitSection().join("\n")
    const cmd = /ragen-bench (leaderboard verify [^<\n]+)/.exec(text)?.[1]
    expect(cmd).toBeDefined()
    expect(cmd).toContain("--plugin ./my-filter.ts")
    const work = join(dir, "submit")
    mkdirSync(work)
    mkdirSync(join(work, "my-records"))
    for (const n of readdirSync(records)) writeFileSync(join(work, "my-records", n), readFileSync(join(records, n)))
    writeFileSync(join(work, "my-filter.ts"), readFileSync(fixturePlugin, "utf8").replace("../../../core/contracts/index.ts", join(import.meta.dir, "..", "..", "core", "contracts", "index.ts")))
    const r = runCli(cmd!.split(/\s+/), { env, cwd: work })
    if (r.code !== 0) console.error(r.stdout, r.stderr)
    expect(r.stdout).toContain("1/1 re-run(s) matched")
    expect(r.code).toBe(0)
    // The next line builds the page with the checker's marks: the re-run record shows as verified.
    const build = /ragen-bench (leaderboard my-records\/ [^<\n]+)/.exec(text)?.[1]
    expect(build).toContain("--marks my-marks/")
    const b = runCli(build!.split(/\s+/), { env, cwd: work })
    expect(b.code).toBe(0)
    const lb = JSON.parse(readFileSync(join(work, "site", "leaderboard.json"), "utf8"))
    expect(lb.entries.filter((e: { verified: boolean | null }) => e.verified === true)).toHaveLength(1)
  }, 60_000)
})
