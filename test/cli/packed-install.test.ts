// The README's authoring path on a machine with only Node and npm (docs/decisions.md#issue-42):
// the package is packed (`npm pack`) and installed into an empty folder, and the clone is
// installed as a folder (`npm install <clone>`), each run with a PATH that holds no Bun (no folder
// with a `bun` or `bunx`, no node_modules/.bin). The package's `bin` (bin/ragen-bench.mjs) must
// find the Bun of its `bun` dependency by itself. From the tarball: `npx ragen-bench --help`,
// the README's filter (`filter apply --plugin ./my-filter.ts`) and a two-run sweep of it on the
// standard recipe (docs/filters.md's spec, two seeds) that the published reference set joins,
// ending with the page's verdict sentence. The tarball ships the code, the warm starts, the
// reference sets and the docs, and no tests. Dependencies come from npm's cache where it has them
// (--prefer-offline), else from the registry. Under CI=true never skipped; elsewhere the tarball
// install is skipped only when a dependency is neither cached nor reachable. Most of its time is
// the install (Bun's binary) and the sweep (two 40-step FrozenLake runs on 2 workers).
import { afterAll, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathWithoutBun, root } from "../helpers/cli.ts"

const work = mkdtempSync(join(tmpdir(), "ragen-packed-"))
const bunCache = join(work, "bun-cache")
mkdirSync(bunCache)
afterAll(() => rmSync(work, { recursive: true, force: true }), 180_000)

const PATH = pathWithoutBun()

/** The environment of a user's shell: npm's own variables of the `npm test` that runs this (its prefix, its scripts) left out. */
const userEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k) && k !== "INIT_CWD") env[k] = v
  return { ...env, PATH, NO_COLOR: "1", BUN_INSTALL_CACHE_DIR: bunCache, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" }
}

const sh = (cmd: string, args: ReadonlyArray<string>, cwd: string, timeout = 120_000) => {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout, env: userEnv() })
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "", error: r.error }
}
const npx = (args: ReadonlyArray<string>, cwd: string, timeout = 120_000) => sh("npx", ["ragen-bench", ...args], cwd, timeout)

const readme = readFileSync(join(root, "README.md"), "utf8")
const myFilter = /```ts\n(\/\/ my-filter\.ts[\s\S]*?)```/.exec(readme)?.[1] ?? ""
/** docs/filters.md's "Sweep it" spec (the standard recipe for FrozenLake), on two seeds. */
const mySweep = (/```yaml\n(# my-sweep\.yaml[\s\S]*?)```/.exec(readFileSync(join(root, "docs", "filters.md"), "utf8"))?.[1] ?? "").replace(/seeds: \[[^\]]*\]/, "seeds: [1, 2]")

/** A user's folder with the README's filter and a groups file. */
const userFolder = (name: string): string => {
  const dir = join(work, name)
  mkdirSync(dir)
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `ragen-user-${name}`, private: true }))
  writeFileSync(join(dir, "my-filter.ts"), myFilter)
  writeFileSync(
    join(dir, "groups.json"),
    JSON.stringify({
      groups: [
        [1, 0, 0, 1],
        [0, 0, 0, 0]
      ]
    })
  )
  return dir
}

const expectHelp = (r: ReturnType<typeof sh>) => {
  expect(r.stderr).toBe("")
  expect(r.code).toBe(0)
  expect(r.stdout).toContain("ragen-bench/")
  expect(r.stdout).toContain("sweep <spec>")
}

const expectFilter = (r: ReturnType<typeof sh>) => {
  expect(r.stderr).toBe("")
  expect(r.code).toBe(0)
  const out = JSON.parse(r.stdout)
  expect(out.filter).toBe("spread/min-range")
  expect(out.keptGroups).toEqual([0])
}

describe("ragen-bench with only Node and npm on PATH", () => {
  test("the test's PATH has node and npm and no Bun", () => {
    const which = (c: string) => sh("sh", ["-c", `command -v ${c}`], work, 10_000)
    expect(which("node").code).toBe(0)
    expect(which("npm").code).toBe(0)
    expect(which("npx").code).toBe(0)
    expect(which("bun").code).not.toBe(0)
    expect(myFilter).toContain("definePlugin")
    expect(mySweep).toContain("seeds: [1, 2]")
  })

  let tarball = ""
  test("npm pack ships the code, the warm starts, the reference sets and the docs, and no tests", () => {
    const r = sh("npm", ["pack", "--pack-destination", work, "--json"], root, 180_000)
    expect(r.code).toBe(0)
    const [info] = JSON.parse(r.stdout) as Array<{ filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }>
    tarball = join(work, info!.filename)
    const files = info!.files.map((f) => f.path)
    for (const f of [
      "bin/ragen-bench.mjs",
      "cli.ts",
      "builtins.ts",
      "bunfig.toml",
      "README.md",
      "core/contracts/index.ts",
      "core/kit.ts",
      "plugins/tinylm/warmstarts/manifest.json",
      "plugins/tinylm/warmstarts/frozenlake-tiny-headroom.safetensors",
      "docs/filters.md",
      "examples/filters/spread-filter.ts",
      "benchmarks/RESULTS.md"
    ])
      expect(files).toContain(f)
    expect(files.some((f) => f.startsWith("plugins/leaderboard/reference/standard/"))).toBe(true)
    expect(files.filter((f) => /^(test|tools|experiments|\.ci)\//.test(f) || (f.startsWith("benchmarks/") && f !== "benchmarks/RESULTS.md"))).toEqual([])
    // The package's own bunfig.toml (the launcher's --config) preloads nothing outside the package when a command runs.
    const bunfig = readFileSync(join(root, "bunfig.toml"), "utf8")
    expect(bunfig.split(/^\[/m)[0]).not.toContain("preload")
    expect(bunfig).not.toMatch(/^\[run\]/m)
    console.log(`npm pack: ${info!.filename}, ${(info!.size / 1e6).toFixed(1)} MB packed, ${(info!.unpackedSize / 1e6).toFixed(1)} MB unpacked, ${files.length} files`)
  }, 180_000)

  test("from the tarball: npx ragen-bench --help, the README's filter, and a two-run sweep beside the published reference", () => {
    expect(tarball).not.toBe("")
    const user = userFolder("tarball")
    const install = sh("npm", ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund"], user, 300_000)
    if (install.code !== 0 && process.env.CI !== "true" && sh("npm", ["ping"], user, 20_000).code !== 0) {
      // Outside CI only: the dependencies are neither in npm's cache nor reachable.
      console.log(`skipping the tarball install: npm's registry cannot be reached and the cache lacks a dependency (${install.stderr.trim().split("\n").at(-1)})`)
      return
    }
    expect(install.stderr.includes("npm error") ? install.stderr : "").toBe("")
    expect(install.code).toBe(0)
    // The bin runs without npx's PATH too: the launcher finds the dependency's Bun by itself.
    expectHelp(sh(join(user, "node_modules", ".bin", "ragen-bench"), ["--help"], user))
    expectHelp(npx(["--help"], user))
    expectFilter(npx(["filter", "apply", "--plugin", "./my-filter.ts", "--filter", "min-range", "--filter-value", "1", "groups.json"], user))

    writeFileSync(join(user, "my-sweep.yaml"), mySweep)
    const r = npx(["sweep", "my-sweep.yaml", "--plugin", "./my-filter.ts", "--reference", "--out", "results/mine", "--leaderboard", "site/mine"], user, 600_000)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("2 done, 0 already complete, 0 failed")
    // the published runs of the same recipe join, paired by seed
    const joined = /reference \S+: (\d+) of \d+ run\(s\) joined beside yours/.exec(r.stderr)
    expect(joined).not.toBeNull()
    expect(Number(joined![1])).toBeGreaterThan(0)
    const lb = JSON.parse(readFileSync(join(user, "site", "mine", "leaderboard.json"), "utf8"))
    expect(lb.filters).toContain("min-range")
    expect(lb.filters).toContain("none")
    // the sweep ends with the page's verdict sentence
    expect(r.stdout.trim().split("\n").at(-1)).toBe(lb.verdict.sentence)
    // nothing was installed at run time
    expect(readdirSync(bunCache)).toEqual([])
  }, 900_000)

  test("from the clone as a folder (npm install <folder>): npx ragen-bench --help and the README's filter", () => {
    const user = userFolder("folder")
    const install = sh("npm", ["install", root, "--prefer-offline", "--no-audit", "--no-fund"], user, 120_000)
    expect(install.code).toBe(0)
    expectHelp(npx(["--help"], user))
    expectFilter(npx(["filter", "apply", "--plugin", "./my-filter.ts", "--filter", "min-range", "--filter-value", "1", "groups.json"], user))
    expect(readdirSync(bunCache)).toEqual([])
  }, 240_000)
})
