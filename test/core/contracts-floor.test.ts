/**
 * The contracts are the floor (docs/decisions.md#issue-24): every file of core/contracts/ imports only other
 * contracts files and packages, never the rest of core, and no import cycle among them spans
 * more than one file. Type-only imports count: they are what a reader follows.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative, resolve } from "node:path"
import { root } from "../helpers/cli.ts"
import { specifiers } from "../helpers/import-scan.ts"

interface Floor {
  /** "file → target" for every relative import that leaves the folder. */
  readonly outside: string[]
  /** Import cycles (strongly connected components) of more than one file, each sorted. */
  readonly cycles: string[][]
}

/** Scan a folder's .ts files (not its subfolders' files: the contracts folder is flat). */
const scanFloor = (dir: string): Floor => {
  const names = readdirSync(dir).filter((n) => n.endsWith(".ts"))
  const edges = new Map<string, string[]>()
  const outside: string[] = []
  for (const n of names) {
    const targets: string[] = []
    for (const spec of specifiers(readFileSync(join(dir, n), "utf8"))) {
      if (!spec.startsWith(".")) continue // a package
      const rel = relative(dir, resolve(dir, spec))
      if (rel.startsWith("..") || rel.includes("/")) outside.push(`${n} → ${rel}`)
      else targets.push(rel)
    }
    edges.set(n, targets)
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  let next = 0
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1) cycles.push(scc.sort())
    }
  }
  for (const n of names) if (!index.has(n)) visit(n)
  return { outside, cycles }
}

describe("the contracts are the floor", () => {
  test("core/contracts imports nothing else of core, and no cycle spans more than one file", () => {
    const floor = scanFloor(join(root, "core", "contracts"))
    expect(floor.outside).toEqual([])
    expect(floor.cycles).toEqual([])
  })

  const tmp = mkdtempSync(join(tmpdir(), "contracts-floor-"))
  afterAll(() => rmSync(tmp, { recursive: true, force: true }))

  test("the scan fails on a planted import of core and a planted two-file cycle (a check that cannot fail is no check)", () => {
    const dir = join(tmp, "core", "contracts")
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "a.ts"), `import type { B } from "./b.ts"\nimport { Effect } from "effect"\nexport type A = B\n`)
    writeFileSync(join(dir, "b.ts"), `export type { A } from "./a.ts"\nimport type { Rng } from "../rng.ts"\nexport type B = Rng\n`)
    writeFileSync(join(dir, "c.ts"), `import type { A } from "./a.ts"\nconst d = await import("../sweep/grid.ts")\nexport type C = A\n`)
    const floor = scanFloor(dir)
    expect(floor.outside.sort()).toEqual(["b.ts → ../rng.ts", "c.ts → ../sweep/grid.ts"])
    expect(floor.cycles).toEqual([["a.ts", "b.ts"]])
  })
})
