/**
 * One way to start a child on this runtime (core/runtime.ts spawnOnRuntime): the sweep pool, the
 * BullMQ children and the benchmarks share it, so a flag such as `--no-install` reaches them all.
 */
import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { runtimeArgs, spawnOnRuntimeSync } from "../../core/runtime.ts"
import { root } from "../helpers/cli.ts"
import { tsFiles } from "../helpers/import-scan.ts"

/** A child started by hand on this runtime's executable, outside the one helper. */
const ownSpawn = (text: string): boolean => /\b(spawn|spawnSync|execFileSync|execFile)\(\s*process\.execPath\b/.test(text) || /\bconst \w+ = process\.execPath\b/.test(text)

describe("starting a child on this runtime", () => {
  test("Bun children never install at run time, read the package's bunfig.toml; the argv names the file", () => {
    // and read the package's bunfig.toml and no .env, not the files of the user's working directory
    expect(runtimeArgs("/x/worker.ts")).toEqual(["--no-install", "--no-env-file", `--config=${join(root, "bunfig.toml")}`, "/x/worker.ts"])
  })

  test("the helper runs a child and returns its output", () => {
    const r = spawnOnRuntimeSync(join(root, "test/fixtures/print-argv.ts"), ["a", "b"], { encoding: "utf8" })
    expect(r.status).toBe(0)
    expect(String(r.stdout).trim()).toBe('["a","b"]')
  })

  test("no product file or benchmark spawns the runtime by hand", () => {
    const files = ["core", "plugins", "envs", "algorithms", "benchmarks"].flatMap((d) => tsFiles(join(root, d)))
    const own = files.filter((f) => !f.endsWith(join("core", "runtime.ts")) && ownSpawn(readFileSync(f, "utf8"))).map((f) => relative(root, f))
    expect(own).toEqual([])
    expect(ownSpawn(`const c = spawn(process.execPath, ["x.ts"])`)).toBe(true)
  })
})
