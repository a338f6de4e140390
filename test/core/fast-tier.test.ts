/** The fast tier (`npm run test:fast`, tools/test-fast.ts) holds only files that start no process. */
import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fastFiles, SLOW, SPAWNS } from "../../tools/test-fast.ts"
import { root } from "../helpers/cli.ts"

describe("the fast test tier", () => {
  test("holds most test files, none that names a process, none of the slow list or WebGPU", () => {
    const files = fastFiles()
    expect(files.length).toBeGreaterThan(60)
    expect(files.filter((f) => SPAWNS.test(readFileSync(join(root, f), "utf8")))).toEqual([])
    expect(files.filter((f) => SLOW.includes(f) || f.startsWith("test/webgpu/"))).toEqual([])
    expect(files).toContain("test/core/fast-tier.test.ts")
  })

  test("the process pattern sees the CLI helper, a worker pool and a browser (a check that cannot fail is no check)", () => {
    // Spelled in pieces, so that this file itself stays in the tier.
    expect(SPAWNS.test(["const r = run", "Cli([])"].join(""))).toBe(true)
    expect(SPAWNS.test(["import { chrom", "ium } from 'play", "wright-core'"].join(""))).toBe(true)
    expect(SPAWNS.test(["runLocal({ work", "ers: 2 })"].join(""))).toBe(true)
    expect(SPAWNS.test(`const x = mean([1, 2])`)).toBe(false)
  })
})
