// The package's `bin`, bin/ragen-bench.mjs (docs/decisions.md#issue-42): a Node script that runs
// cli.ts on the Bun of the `bun` dependency, with a PATH that has no Bun. It passes argv, stdio
// and the exit code through, passes SIGTERM and (off a terminal) SIGINT on to Bun, and Bun reads
// the package's bunfig.toml and no .env, not the files of the working directory.
import { afterAll, describe, expect, test } from "bun:test"
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { binPath, pathWithoutBun, root } from "../helpers/cli.ts"

const dir = mkdtempSync(join(tmpdir(), "ragen-launcher-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const env = { ...process.env, PATH: pathWithoutBun(), NO_COLOR: "1" }

const run = (args: ReadonlyArray<string>) => {
  const r = spawnSync(binPath, args, { cwd: dir, env, encoding: "utf8", timeout: 60_000 })
  return { code: r.status ?? -1, signal: r.signal, stdout: r.stdout ?? "", stderr: r.stderr ?? "" }
}

describe("bin/ragen-bench.mjs", () => {
  test("is the package's bin, a Node script", () => {
    expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin["ragen-bench"]).toBe("bin/ragen-bench.mjs")
    expect(readFileSync(binPath, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node")
  })

  test("passes argv, stdout, stderr and the exit code through", () => {
    writeFileSync(join(dir, "groups.json"), JSON.stringify({ groups: [[1, 0]] }))
    const ok = run(["filter", "apply", "--filter", "none", "groups.json"])
    expect(ok.stderr).toBe("")
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout).keptGroups).toEqual([0])
    const bad = run(["swep"])
    expect(bad.code).toBe(2)
    expect(bad.stderr.trim()).toBe('error: unknown command "swep" (did you mean sweep?); run ragen-bench --help for the list of commands')
  }, 120_000)

  test("a bunfig.toml or .env in the working directory is not read", () => {
    writeFileSync(join(dir, "boom.ts"), `console.log("BOOM: the working directory's bunfig.toml was read")\n`)
    writeFileSync(join(dir, "bunfig.toml"), `preload = ["./boom.ts"]\n[run]\npreload = ["./boom.ts"]\n`)
    writeFileSync(join(dir, ".env"), "RAGEN_LAUNCHER_TEST=loaded\n")
    try {
      const r = run(["--version"])
      expect(r.code).toBe(0)
      expect(r.stdout).not.toContain("BOOM")
      expect(r.stdout).toStartWith("ragen-bench/")
      expect(r.stderr).not.toContain("refusing")
    } finally {
      rmSync(join(dir, "bunfig.toml"))
      rmSync(join(dir, ".env"))
    }
  }, 60_000)

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`${signal} to the launcher reaches Bun, and the launcher ends when Bun does`, async () => {
      const child = spawn(binPath, ["env", "serve", "--port", "0"], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      child.stdout.on("data", (d) => (out += String(d)))
      child.stderr.on("data", (d) => (out += String(d)))
      const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })))
      for (let i = 0; i < 600 && !out.includes("listening on"); i++) await Bun.sleep(100)
      expect(out).toContain("env server listening on")
      child.kill(signal)
      const end = await Promise.race([ended, Bun.sleep(30_000).then(() => undefined)])
      expect(end).toEqual({ code: 0, signal: null })
      expect(out).toContain("env server stopped")
    }, 120_000)
  }
})
