import { describe, expect, test } from "bun:test"
import { Effect, Exit, Schema } from "effect"
import { definePlugin } from "../../core/contracts/index.ts"
import type { Filter } from "../../core/contracts/index.ts"
import { UnknownIdError } from "../../core/errors.ts"
import { buildRegistry, lookupEntry, Registry, registryLayerFrom, resolveEntry } from "../../core/registry.ts"

const filter = (name: string): Filter => ({
  name,
  description: `filter ${name}`,
  options: Schema.Struct({}),
  select: (groups) => ({ keep: groups.map((g) => ({ group: g.index, trajectories: g.returns.map((_, i) => i) })) })
})

const a = definePlugin({ name: "alpha", version: "1.0.0", filters: [filter("keep"), filter("sel-v1"), filter("sel-v2")] })
const b = definePlugin({ name: "beta", version: "0.1.0", filters: [filter("keep")] })

const run = <A, E>(e: Effect.Effect<A, E>) => Effect.runSyncExit(e)

describe("registry", () => {
  test("namespaces ids by plugin and resolves full, local and unversioned ids", () => {
    const data = Effect.runSync(buildRegistry([a]))
    expect(data.entries.filters.map((e) => e.fullId)).toEqual(["alpha/keep", "alpha/sel-v1", "alpha/sel-v2"])
    expect(Effect.runSync(resolveEntry(data, "filters", "alpha/keep")).localId).toBe("keep")
    expect(Effect.runSync(resolveEntry(data, "filters", "keep")).plugin).toBe("alpha")
    expect(Effect.runSync(resolveEntry(data, "filters", "sel")).localId).toBe("sel-v2")
  })

  test("falsy entries are skipped and arrays flattened", () => {
    const data = Effect.runSync(buildRegistry([false, null, [a, [undefined]]]))
    expect(data.plugins.map((p) => p.name)).toEqual(["alpha"])
  })

  test("a duplicate id is a typed error naming both plugins", () => {
    const dup = definePlugin({ name: "gamma", version: "1", filters: [filter("x"), filter("x")] })
    const exit = run(buildRegistry([dup]))
    const err = Effect.runSync(Effect.flip(buildRegistry([dup])))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(err._tag).toBe("DuplicateIdError")
    expect(err.message).toContain("gamma/x")
    const err2 = Effect.runSync(Effect.flip(buildRegistry([a, { ...a, version: "2.0.0" }])))
    expect(err2._tag).toBe("DuplicateIdError")
    expect(err2.message).toContain("alpha")
    expect(err2.plugins).toEqual(["alpha", "alpha"])
  })

  test("an unknown id is a typed error listing the known ids", () => {
    const data = Effect.runSync(buildRegistry([a, b]))
    const err = Effect.runSync(Effect.flip(resolveEntry(data, "filters", "nope")))
    expect(err._tag).toBe("UnknownIdError")
    expect(err.known).toEqual(["alpha/keep", "alpha/sel-v1", "alpha/sel-v2", "beta/keep"])
    expect(err.message).toContain("beta/keep")
    expect(err.message).toContain("--plugin")
  })

  test("the synchronous lookup answers the entry or the same typed error, with no Effect to unwrap", () => {
    const data = Effect.runSync(buildRegistry([a, b]))
    const found = lookupEntry(data, "filters", "sel")
    expect(found instanceof UnknownIdError ? found.message : found.fullId).toBe("alpha/sel-v2")
    const missing = lookupEntry(data, "filters", "nope")
    expect(missing).toBeInstanceOf(UnknownIdError)
    expect((missing as UnknownIdError).message).toBe(Effect.runSync(Effect.flip(resolveEntry(data, "filters", "nope"))).message)
  })

  test("a local id two plugins provide is ambiguous and names both", () => {
    const data = Effect.runSync(buildRegistry([a, b]))
    const err = Effect.runSync(Effect.flip(resolveEntry(data, "filters", "keep")))
    expect(err.message).toContain('"alpha"')
    expect(err.message).toContain('"beta"')
    expect(Effect.runSync(resolveEntry(data, "filters", "beta/keep")).plugin).toBe("beta")
  })

  test("the Registry service layer", async () => {
    const program = Effect.gen(function* () {
      const r = yield* Registry
      return (yield* r.resolve("filters", "keep")).fullId
    })
    expect(await Effect.runPromise(program.pipe(Effect.provide(registryLayerFrom([a]))))).toBe("alpha/keep")
    const exit = await Effect.runPromiseExit(program.pipe(Effect.provide(registryLayerFrom([a, b]))))
    expect(Exit.isFailure(exit)).toBe(true)
  })
})
