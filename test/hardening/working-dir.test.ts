/**
 * No code from the working directory (issue 40, README.md, "Trust boundaries"): a `.env` naming
 * RAGEN_TRAIN_MODULE or a `bunfig.toml` with `preload` in the folder the CLI is run from (say, a
 * received submission) once ran its code. Bun started with the launcher's flags reads neither;
 * a Bun started without them refuses to go on; the trainer override is honoured only for a
 * module of this package's test/ folder, whoever sets it.
 */
import { describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { checkWorkingDir } from "../../core/cli/working-dir.ts"
import { trainModuleProblem } from "../../core/train/entry.ts"
import { bunBin, mainTs, root, runCli } from "../helpers/cli.ts"
import { tempRoot } from "./helpers.ts"

const { fresh } = tempRoot("rb-workdir-")

/** A received folder: evil.ts writes a marker when imported; .env names it as the trainer; bunfig.toml preloads a second one. */
const hostile = (name: string, files: { env?: boolean; bunfig?: boolean }): { dir: string; trainMarker: string; preloadMarker: string } => {
  const dir = fresh(name)
  const trainMarker = join(dir, "TRAINER-RAN")
  const preloadMarker = join(dir, "PRELOAD-RAN")
  writeFileSync(join(dir, "evil.ts"), `require("node:fs").writeFileSync(${JSON.stringify(trainMarker)}, "x")\nexport const train = async () => { throw new Error("evil") }\n`)
  writeFileSync(join(dir, "pre.ts"), `require("node:fs").writeFileSync(${JSON.stringify(preloadMarker)}, "x")\n`)
  if (files.env) writeFileSync(join(dir, ".env"), `RAGEN_TRAIN_MODULE=${join(dir, "evil.ts")}\n`)
  if (files.bunfig) writeFileSync(join(dir, "bunfig.toml"), 'preload = ["./pre.ts"]\n')
  mkdirSync(join(dir, "records"))
  return { dir, trainMarker, preloadMarker }
}

const bun = (args: ReadonlyArray<string>, cwd: string) => {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1" }
  delete env.RAGEN_TRAIN_MODULE
  const r = spawnSync(bunBin, args, { cwd, encoding: "utf8", env, timeout: 60_000 })
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" }
}

describe("no code from the working directory", () => {
  test("a .env naming RAGEN_TRAIN_MODULE: `bun cli.ts` refuses (exit 2, naming the file and the launcher); the module never runs", () => {
    const h = hostile("dotenv", { env: true })
    const r = bun([mainTs, "leaderboard", "verify", "records", "--marks", join(h.dir, "..", "marks-dotenv")], h.dir)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`${join(h.dir, ".env")} from the working directory`)
    expect(r.stderr).toContain("--no-env-file")
    expect(existsSync(h.trainMarker)).toBe(false)
  }, 60_000)

  test("a bunfig.toml of the working directory: `bun cli.ts` refuses, naming it", () => {
    const h = hostile("bunfig", { bunfig: true })
    const r = bun([mainTs, "--version"], h.dir)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`Bun read ${join(h.dir, "bunfig.toml")}`)
  }, 60_000)

  test("with the launcher's flags (--no-env-file --config=<package>/bunfig.toml) neither file is read: no preload, no trainer, a note", () => {
    const h = hostile("flags", { env: true, bunfig: true })
    const r = bun(["--no-install", "--no-env-file", `--config=${join(root, "bunfig.toml")}`, mainTs, "leaderboard", "verify", "records", "--marks", join(h.dir, "..", "marks-flags")], h.dir)
    expect(existsSync(h.preloadMarker)).toBe(false)
    expect(existsSync(h.trainMarker)).toBe(false)
    expect(r.stderr).toContain("./.env not loaded")
    expect(r.stdout).toContain("nothing could be checked")
    expect(r.code).toBe(1)
  }, 60_000)

  test("RAGEN_TRAIN_MODULE outside the package's test/ folder is refused, whoever set it", () => {
    const h = hostile("env-var", {})
    const r = runCli(["leaderboard", "verify", join(h.dir, "records"), "--marks", join(h.dir, "..", "marks-env-var")], { env: { RAGEN_TRAIN_MODULE: join(h.dir, "evil.ts") } })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("outside this package's test/ folder")
    expect(existsSync(h.trainMarker)).toBe(false)
    expect(trainModuleProblem(join(root, "test", "helpers", "fake-train.ts"))).toBeUndefined()
    expect(trainModuleProblem(join(root, "test", "..", "cli.ts"))).toContain("outside")
    expect(trainModuleProblem("/nonexistent/x.ts")).toContain("refused")
  }, 60_000)

  test("checkWorkingDir: the package's own bunfig.toml and Deno are fine; .env.local counts as a .env", () => {
    expect(checkWorkingDir(root, [], root, false)).toEqual({})
    const d = fresh("envlocal")
    writeFileSync(join(d, ".env.local"), "A=1\n")
    expect(checkWorkingDir(d, [], root, false).refuse).toContain(".env.local")
    expect(checkWorkingDir(d, ["--no-env-file"], root, false).note).toContain("./.env.local not loaded")
    expect(checkWorkingDir(d, [], root, true)).toEqual({})
  })
})
