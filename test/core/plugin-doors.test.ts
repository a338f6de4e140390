/**
 * No back doors between plugins (docs/decisions.md#issue-24): a file under plugins/<X> imports from another plugin Y
 * only Y's public entry (plugins/<Y>/plugin.ts, or the index.ts Y defines for other plugins), and
 * nothing in the product (core/, plugins/, envs/, algorithms/) imports the composition root's
 * builtins.ts: a sweep worker is told its path, as it is told the user plugins' paths.
 */
import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { root } from "../helpers/cli.ts"
import { specifiers, tsFiles } from "../helpers/import-scan.ts"

/** Every relative import of the files under `dirs`, as "from → to" (paths relative to the root). */
const arrows = (dirs: ReadonlyArray<string>): Array<{ from: string; to: string }> =>
  dirs.flatMap((d) =>
    tsFiles(join(root, d)).flatMap((f) =>
      specifiers(readFileSync(f, "utf8"))
        .filter((s) => s.startsWith("."))
        .map((s) => ({ from: relative(root, f), to: relative(root, resolve(f, "..", s)) }))
    )
  )

/** The core files the package exports (package.json "exports"): the only doors into core from outside it. */
const publicEntries = (): Set<string> => {
  const exports = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).exports as Record<string, string>
  return new Set(
    Object.values(exports)
      .map((p) => p.replace(/^\.\//, ""))
      .filter((p) => p.startsWith("core/"))
  )
}

/** An import of a core file the package does not export, from a plugin, env, algorithm or example. */
const coreBackDoor = (a: { from: string; to: string }, entries: ReadonlySet<string>): boolean => /^core\//.test(a.to) && !/^core\//.test(a.from) && !entries.has(a.to)

const pluginOf = (path: string): string | undefined => /^plugins\/([^/]+)\//.exec(path)?.[1]
const isPublicEntry = (path: string): boolean => /^plugins\/[^/]+\/(plugin|index)\.ts$/.test(path)

/** A door into another plugin's internals: from plugins/X to a file of plugins/Y other than its entry. */
const backDoor = (a: { from: string; to: string }): boolean => {
  const x = pluginOf(a.from)
  const y = pluginOf(a.to)
  return x !== undefined && y !== undefined && x !== y && !isPublicEntry(a.to)
}

/** Doors still open: none. An entry here that no longer exists fails the test, so this list only shrinks. */
const KNOWN: ReadonlyArray<string> = []

describe("doors between plugins", () => {
  test("a plugin imports another plugin only through its public entry (plugin.ts or index.ts)", () => {
    const doors = [
      ...new Set(
        arrows(["plugins"])
          .filter(backDoor)
          .map((a) => `${a.from} → ${a.to}`)
      )
    ].sort()
    expect(doors.filter((d) => !KNOWN.includes(d))).toEqual([])
    expect(KNOWN.filter((d) => !doors.includes(d))).toEqual([])
  })

  test("every public entry other plugins import exists", () => {
    const entries = [
      ...new Set(
        arrows(["plugins"])
          .filter((a) => pluginOf(a.to) !== pluginOf(a.from) && isPublicEntry(a.to))
          .map((a) => a.to)
      )
    ]
    expect(entries.length).toBeGreaterThan(0)
    for (const e of entries) expect(existsSync(join(root, e))).toBe(true)
  })

  test("plugins, envs, algorithms and examples import core only through the package's entries (contracts, kit, host)", () => {
    const entries = publicEntries()
    expect([...entries].sort()).toEqual(["core/contracts/index.ts", "core/host.ts", "core/kit.ts"])
    const doors = [
      ...new Set(
        arrows(["plugins", "envs", "algorithms", "examples"])
          .filter((a) => coreBackDoor(a, entries))
          .map((a) => `${a.from} → ${a.to}`)
      )
    ].sort()
    expect(doors).toEqual([])
  })

  test("the examples, written for outside authors, use only the author's entries (contracts and kit)", () => {
    const used = arrows(["examples"]).filter((a) => a.to.startsWith("core/"))
    expect(used.length).toBeGreaterThan(0)
    expect(used.filter((a) => a.to !== "core/contracts/index.ts" && a.to !== "core/kit.ts")).toEqual([])
  })

  test("nothing in the product imports builtins.ts (the one arrow that ran back up)", () => {
    const up = arrows(["core", "plugins", "envs", "algorithms"]).filter((a) => a.to === "builtins.ts")
    expect(up).toEqual([])
  })

  test("the checks see a back door and an arrow up (a check that cannot fail is no check)", () => {
    expect(backDoor({ from: "plugins/leaderboard/command.ts", to: "plugins/sweep/train-fn.ts" })).toBe(true)
    expect(backDoor({ from: "plugins/bullmq/coordinator.ts", to: "plugins/sweep/index.ts" })).toBe(false)
    expect(backDoor({ from: "plugins/sweep/runner.ts", to: "plugins/sweep/protocol.ts" })).toBe(false)
    expect(backDoor({ from: "plugins/sweep/worker.ts", to: "builtins.ts" })).toBe(false)
    const entries = new Set(["core/host.ts", "core/kit.ts", "core/contracts/index.ts"])
    expect(coreBackDoor({ from: "plugins/sweep/runner.ts", to: "core/rng.ts" }, entries)).toBe(true)
    expect(coreBackDoor({ from: "examples/filters/extremes-filter.ts", to: "core/filters/input.ts" }, entries)).toBe(true)
    expect(coreBackDoor({ from: "envs/sokoban/env.ts", to: "core/host.ts" }, entries)).toBe(false)
    expect(coreBackDoor({ from: "core/train/loop.ts", to: "core/rng.ts" }, entries)).toBe(false)
    const text = `import { builtinPlugins } from "../../builtins.ts"\nconst w = new URL("../sweep/worker.ts", import.meta.url)`
    expect(specifiers(text)).toEqual(["../../builtins.ts", "../sweep/worker.ts"])
  })
})
