/**
 * YAML `!!omap` / `!!set` options were dropped silently (issue 40): the `yaml` package makes a Map
 * or a Set of them, which a Schema reads as an object with no keys. They are refused now, naming
 * the field; so are `!!binary`, `!!timestamp` and unknown tags.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { loadSpec } from "../../core/sweep/spec.ts"
import { nonPlainValue, parseYamlData } from "../../core/yaml.ts"
import { runCli } from "../helpers/cli.ts"
import { tempRoot } from "./helpers.ts"

const { fresh } = tempRoot("rb-yaml-")

const specWith = (options: string): string => `name: tags
axes:
  env: [frozenlake]
  filter:
    - id: top-p
      options: ${options}
  seeds: [1]
budget: { steps: 1 }
`

const refusal = async (text: string): Promise<string> => {
  const path = join(fresh(`spec-${Math.random().toString(36).slice(2)}`), "spec.yaml")
  writeFileSync(path, text)
  const r = await Effect.runPromise(Effect.result(loadSpec(path)))
  if (r._tag === "Success") return `accepted: ${JSON.stringify(r.success.axes.filter)}`
  return r.failure.message
}

describe("YAML tags that are not plain data", () => {
  test("a spec's !!omap options are refused, naming the field (they were an empty {} before)", async () => {
    const m = await refusal(specWith("!!omap [ { p: 0.5 } ]"))
    expect(m).toContain("axes.filter[0].options")
    expect(m).toContain("!!omap")
    expect(m).toContain("plain mapping")
  })

  test("!!set, !!binary, !!timestamp and an unknown tag are refused too; plain YAML still reads", async () => {
    expect(await refusal(specWith("!!set { ? p }"))).toContain("axes.filter[0].options: a YAML !!set")
    expect(await refusal(specWith("{ p: !!binary aGVsbG8= }"))).toContain("axes.filter[0].options.p: a YAML !!binary")
    expect(await refusal(specWith("{ p: !!timestamp 2001-12-14 }"))).toContain("!!timestamp")
    expect(await refusal(specWith("{ p: !mine 0.5 }"))).toContain("!mine")
    expect(await refusal(specWith("{ p: 0.5 }"))).toContain("accepted")
  })

  test("train --from a YAML config with an !!omap option is a one-line exit 2 naming it", () => {
    const path = join(fresh("from"), "config.yaml")
    writeFileSync(path, "env: frozenlake\nsteps: 0\nfilterOptions: !!omap [ { p: 0.5 } ]\n")
    const r = runCli(["train", "--from", path, "--steps", "0"])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("filterOptions: a YAML !!omap")
    expect(r.stderr).not.toContain("    at ")
  }, 60_000)

  test("the check is iterative (a deep document does not overflow it) and names nested paths", () => {
    let deep: unknown = new Map([["x", 1]])
    for (let i = 0; i < 100_000; i++) deep = { a: deep }
    expect(nonPlainValue(deep)?.tag).toContain("!!omap")
    expect(nonPlainValue({ a: [{ b: new Set() }] })?.path).toBe("a[0].b")
    expect(parseYamlData("a: [1, {b: 2}]\n")).toEqual({ a: [1, { b: 2 }] })
  })
})
