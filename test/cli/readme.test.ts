// The README's "Write your own filter" example is real code, run as a user outside the clone
// would: copied into a folder of its own with ragen-bench linked into node_modules (as
// `npm link ragen-bench` does: the package's `bin`, bin/ragen-bench.mjs, linked into
// node_modules/.bin), run with `npx ragen-bench` and a PATH without Bun (only Node and npm: the
// launcher finds the Bun of the clone's `bun` dependency itself), and nothing is installed at run
// time (Bun's install cache, pointed at an empty folder, stays empty). The tarball and the
// `npm install <folder>` cases: packed-install.test.ts. And the README's commands run as written
// after `npm install`: no bare `bun file.ts` or `deno run … cli.ts`, which need global installs.
import { afterAll, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { binPath, pathWithoutBun, root } from "../helpers/cli.ts"
import { fakeTrainEnv } from "../helpers/fake-train.ts"

const readme = readFileSync(join(root, "README.md"), "utf8")
const block = /```ts\n(\/\/ my-filter\.ts[\s\S]*?)```/.exec(readme)?.[1] ?? ""
const user = mkdtempSync(join(tmpdir(), "ragen-user-"))
const cache = mkdtempSync(join(tmpdir(), "ragen-bun-cache-"))
afterAll(() => {
  rmSync(user, { recursive: true, force: true })
  rmSync(cache, { recursive: true, force: true })
})

mkdirSync(join(user, "node_modules", ".bin"), { recursive: true })
symlinkSync(root, join(user, "node_modules", "ragen-bench"), "dir")
symlinkSync(join("..", "ragen-bench", relative(root, binPath)), join(user, "node_modules", ".bin", "ragen-bench"))
writeFileSync(
  join(user, "groups.json"),
  JSON.stringify({
    groups: [
      [1, 0, 0, 1],
      [0, 0, 0, 0],
      [0.2, 0, 0.1, 0]
    ]
  })
)

/** `npx ragen-bench …` from the user's folder, with no Bun on PATH. */
const npx = (args: ReadonlyArray<string>, cwd = user, env: Record<string, string> = {}) => {
  const r = spawnSync("npx", ["--no", "ragen-bench", ...args], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, PATH: pathWithoutBun(), BUN_INSTALL_CACHE_DIR: cache, npm_config_offline: "true", NO_COLOR: "1", ...env }
  })
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" }
}

describe("README filter, outside the clone", () => {
  test("the snippet imports only from the package, and the package exports what it imports", () => {
    expect(block).toContain("definePlugin")
    expect(block).not.toMatch(/from "\.{1,2}\//)
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
    for (const m of block.matchAll(/from "ragen-bench\/([\w-]+)"/g)) expect(pkg.exports[`./${m[1]}`]).toBeDefined()
    // effect is a peer pinned to the very version the host runs
    const effect = JSON.parse(readFileSync(join(root, "node_modules", "effect", "package.json"), "utf8")).version
    expect(pkg.peerDependencies.effect).toBe(effect)
  })

  test("npx ragen-bench filter apply runs the copied snippet and installs nothing", () => {
    writeFileSync(join(user, "my-filter.ts"), block)
    const r = npx(["filter", "apply", "--plugin", "./my-filter.ts", "--filter", "min-range", "--filter-value", "1", "groups.json"])
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.filter).toBe("spread/min-range")
    expect(out.keptGroups).toEqual([0])
    // the option helper's range holds outside the clone too
    const bad = npx(["filter", "apply", "--plugin", "./my-filter.ts", "--filter", "min-range", "--filter-value", "-1", "groups.json"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("minRange")
    expect(readdirSync(cache)).toEqual([])
  }, 120_000)

  test("npx ragen-bench sweep runs a spec of the user's folder with the copied filter in its workers", () => {
    writeFileSync(join(user, "my-filter.ts"), block)
    const spec = {
      name: "mine",
      axes: { env: ["frozenlake"], filter: [{ id: "spread/min-range", options: { minRange: 1 } }], seeds: [1] },
      fixed: { policy: "fake-policy", P: 4, G: 4 },
      budget: { steps: 2, evalEvery: 1 }
    }
    writeFileSync(join(user, "spec.json"), JSON.stringify(spec))
    // The sweep fixture's fake policy and trainer keep this a few seconds; the user's filter is real.
    const fixture = join(root, "test", "fixtures", "plugins", "sweep-policy.ts")
    const r = npx(
      ["sweep", "spec.json", "--plugin", "./my-filter.ts", "--plugin", fixture, "--workers", "1", "--reference", "none", "--out", "results", "--leaderboard", "site"],
      user,
      fakeTrainEnv(0)
    )
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("1 done")
    const lb = JSON.parse(readFileSync(join(user, "site", "leaderboard.json"), "utf8"))
    expect(lb.filters).toEqual(["min-range"])
    // the sweep ends with the page's verdict sentence
    expect(r.stdout.trim().split("\n").at(-1)).toBe(lb.verdict.sentence)
    expect(readdirSync(cache)).toEqual([])
  }, 120_000)

  test("a bare import the folder lacks fails to load instead of being downloaded", () => {
    const bare = mkdtempSync(join(tmpdir(), "ragen-bare-"))
    try {
      writeFileSync(join(bare, "p.ts"), `import { Schema } from "effect"\nexport default { name: "p", version: "0.0.1", filters: [], s: Schema }\n`)
      const r = spawnSync(binPath, ["list", "filters", "--plugin", "./p.ts"], {
        cwd: bare,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, PATH: pathWithoutBun(), BUN_INSTALL_CACHE_DIR: cache, NO_COLOR: "1" }
      })
      expect(r.status).toBe(2)
      expect(r.stderr).toContain('it imports "effect", which is not installed where the file is; import Schema and Effect from "ragen-bench/kit"')
      expect(readdirSync(cache)).toEqual([])
    } finally {
      rmSync(bare, { recursive: true, force: true })
    }
  }, 60_000)

  test("the README's commands run as written after npm install: no bare bun or deno on a file", () => {
    // Code lines and inline code that start a runtime on a file need it on PATH (a global
    // install); `npx ragen-bench …`, `npx bun …` and `npx deno …` find the project's own.
    const bare = readme
      .split("\n")
      .flatMap((l) => [...l.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).concat(/^\s*(bun|deno)\s/.test(l) ? [l.trim()] : []))
      .filter((c) => /^(bun|deno)\s+(run\s+(-\S+\s+)*)?[\w./-]+\.ts\b/.test(c))
    expect(bare).toEqual([])
    expect(readme).toContain("npx ragen-bench")
  })
})
