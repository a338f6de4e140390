/**
 * The core is minimal (docs/decisions.md#issue-13): it defines the contracts and orchestration and imports nothing
 * from envs/, algorithms/ or plugins/, statically or dynamically; plugins arrive by value.
 */
import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { root } from "../helpers/cli.ts"
import { specifiers, tsFiles } from "../helpers/import-scan.ts"

describe("core imports", () => {
  test("core/ imports nothing from envs/, algorithms/ or plugins/", () => {
    const core = join(root, "core")
    const bad: string[] = []
    for (const f of tsFiles(core)) {
      for (const spec of specifiers(readFileSync(f, "utf8"))) {
        if (!spec.startsWith(".")) continue
        const target = relative(root, resolve(f, "..", spec))
        if (/^(envs|algorithms|plugins)(\/|$)/.test(target)) bad.push(`${relative(root, f)} → ${target}`)
      }
    }
    expect(bad).toEqual([])
  })

  test("the scan sees every kind of import (a check that cannot fail is no check)", () => {
    const text = `import a from "../envs/x.ts"\nexport { b } from "../../plugins/y.ts"\nconst c = await import("../algorithms/z.ts")\nnew URL("../plugins/w.ts", import.meta.url)`
    expect(specifiers(text)).toEqual(["../envs/x.ts", "../../plugins/y.ts", "../algorithms/z.ts", "../plugins/w.ts"])
  })
})
