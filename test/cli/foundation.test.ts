import { describe, expect, test } from "bun:test"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { root, runCli } from "../helpers/cli.ts"

const fixture = (name: string) => join(root, "test", "fixtures", "plugins", name)

describe("CLI foundation", () => {
  test("--help lists the commands and --version prints the package version", () => {
    const h = runCli(["--help"])
    expect(h.code).toBe(0)
    expect(h.stdout).toContain("list [kind]")
    const v = runCli(["--version"])
    expect(v.code).toBe(0)
    expect(v.stdout).toContain(require(join(root, "package.json")).version)
  })

  test("list shows the registered kinds", () => {
    const r = runCli(["list", "--json"])
    expect(r.code).toBe(0)
    const j = JSON.parse(r.stdout)
    expect(Object.keys(j)).toEqual(["envs", "policies", "algorithms", "filters", "scorers", "executors", "sinks", "commands", "warmstarts", "presets"])
    // The sweep presets, contributed by the sweep plugin (plugins/sweep/presets/index.ts).
    expect(j.presets.map((p: { id: string }) => p.id)).toContain("sweep/quick")
    // The shipped warm starts, named by id: one per env (WebShop: one per version), the headroom starts, the arithmetic envs' second-stage and one-stage starts at ≥ 0.5, and MetaMathQA v2's (every or half of the training instances).
    expect(j.warmstarts.map((w: { id: string }) => w.id).sort()).toEqual([
      "tinylm/countdown-tiny",
      "tinylm/countdown-tiny-4000",
      "tinylm/countdown-tiny-stage2",
      "tinylm/frozenlake-tiny",
      "tinylm/frozenlake-tiny-headroom",
      "tinylm/metamathqa-tiny",
      "tinylm/metamathqa-tiny-stage2",
      "tinylm/metamathqa-v2-tiny",
      "tinylm/metamathqa-v2-tiny-half",
      "tinylm/metamathqa-v2-tiny-half-2500",
      "tinylm/metamathqa-v2-tiny-half-3000",
      "tinylm/metamathqa-v2-tiny-half-stage2",
      "tinylm/metamathqa-v2-tiny-stage2",
      "tinylm/searchqa-tiny",
      "tinylm/searchqa-tiny-headroom",
      "tinylm/sokoban-tiny",
      "tinylm/sokoban-tiny-headroom",
      "tinylm/webshop-tiny",
      "tinylm/webshop-v2-tiny",
      "tinylm/webshop-v2-tiny-headroom"
    ])
  })

  test("--plugin registers a plugin from a file", () => {
    const r = runCli(["list", "filters", "--json", "--plugin", fixture("hello-filter.ts")])
    expect(r.code).toBe(0)
    const ids = JSON.parse(r.stdout).filters.map((f: { id: string }) => f.id)
    expect(ids).toContain("hello/keep-all")
  })

  test("a config file in another working directory runs only when named; it adds to the built-ins", () => {
    const dir = mkdtempSync(join(tmpdir(), "ragen-cfg-"))
    writeFileSync(
      join(dir, "ragen-bench.config.ts"),
      `export default { plugins: [{ name: "cfg", version: "1", filters: [{ name: "f", description: "from config", options: { ast: null }, select: () => ({ keep: [] }) }] }] }\n`
    )
    const ids = (r: { stdout: string }) => JSON.parse(r.stdout).filters.map((f: { id: string }) => f.id) as string[]
    const unnamed = runCli(["list", "filters", "--json"], { cwd: dir })
    expect(unnamed.code).toBe(0)
    expect(ids(unnamed)).not.toContain("cfg/f")
    expect(unnamed.stderr).toContain("--config ragen-bench.config.ts")
    const named = runCli(["list", "filters", "--json", "--config", "ragen-bench.config.ts"], { cwd: dir })
    expect(named.code).toBe(0)
    expect(ids(named)).toContain("cfg/f")
    expect(ids(named)).toContain("filters/top-p")
  })

  test("a plugin can contribute a working command", () => {
    const r = runCli(["hello", "world", "--plugin", fixture("hello-command.ts")])
    expect(r.code).toBe(0)
    const filters = JSON.parse(runCli(["list", "filters", "--json"]).stdout).filters.length
    expect(r.stdout.trim()).toBe(`hello, world (${filters} filters registered)`)
    const help = runCli(["--help", "--plugin", fixture("hello-command.ts")])
    expect(help.stdout).toContain("hello <name>")
    const clash = runCli(["list", "--plugin", fixture("hello-command.ts"), "--plugin", fixture("clashing-command.ts")])
    expect(clash.code).toBe(2)
    expect(clash.stderr).toContain('command "hello" is contributed by both plugin "hello-cmd" and plugin "clash"')
  })

  test("user mistakes exit 2 with one clear line and no stack trace", () => {
    const cases: Array<[string[], string]> = [
      [["list", "nope"], "kind"],
      [["list", "--bogus"], "unknown option --bogus"],
      [["frobnicate"], "unknown command"],
      [["list", "--plugin", "does/not/exist.ts"], "--plugin"],
      [["list", "--plugin", fixture("not-a-plugin.ts")], "default-export a plugin"],
      [["list", "--plugin", fixture("hello-filter.ts"), "--plugin", fixture("hello-filter.ts")], "registered twice"],
      [["list", "--config", "nope.config.ts"], "--config"]
    ]
    for (const [args, needle] of cases) {
      const r = runCli(args)
      expect(r.code).toBe(2)
      expect(r.stderr).toContain("error:")
      expect(r.stderr).toContain(needle)
      expect(r.stderr).not.toContain("    at ")
    }
  })

  test("an unreadable config file is a clear error", () => {
    const dir = mkdtempSync(join(tmpdir(), "ragen-cfg-"))
    writeFileSync(join(dir, "ragen-bench.config.ts"), "export default {{{ not typescript")
    const r = runCli(["list", "--config", "ragen-bench.config.ts"], { cwd: dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("config")
    expect(r.stderr).not.toContain("    at ")
  })

  test("the CLI runs under Deno (smoke: list)", () => {
    const r = runCli(["list", "--json"], { runtime: "deno" })
    expect(r.code).toBe(0)
    expect(Object.keys(JSON.parse(r.stdout))).toContain("filters")
  })
})
