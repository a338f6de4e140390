// The author kit's option builders (ragen-bench/kit): defaults filled, ranges and sets enforced
// with one-line messages, a default outside its own range refused when the plugin loads.
import { describe, expect, test } from "bun:test"
import { option, options, Schema } from "../../core/kit.ts"
import { decodeSync } from "../../core/schema/decode.ts"

const O = options({
  k: option.number(2, { min: 1, max: 8, integer: true }),
  rate: option.number(0.5, { min: 0 }),
  metric: option.oneOf(["std", "var"], "std"),
  keepFlat: option.boolean(false),
  // Schema stays available for what the builders do not cover
  tags: Schema.optional(Schema.Array(Schema.String))
})
const decode = (x: unknown) => decodeSync(O, x, { field: "--option" })

describe("option builders", () => {
  test("fill their defaults and keep given values", () => {
    expect(decode({})).toEqual({ ok: true, value: { k: 2, rate: 0.5, metric: "std", keepFlat: false } })
    expect(decode({ k: 8, rate: 3, metric: "var", keepFlat: true, tags: ["a"] })).toEqual({ ok: true, value: { k: 8, rate: 3, metric: "var", keepFlat: true, tags: ["a"] } })
  })

  test("refuse values outside their range or set, naming what was given and what is allowed", () => {
    expect(decode({ k: 9 })).toEqual({ ok: false, message: "k: got 9; expected a number from 1 to 8" })
    expect(decode({ k: 1.5 })).toEqual({ ok: false, message: "k: got 1.5; expected a whole number" })
    expect(decode({ rate: -1 })).toEqual({ ok: false, message: "rate: got -1; expected a number ≥ 0" })
    expect(decode({ metric: "mad" })).toEqual({ ok: false, message: 'metric: got "mad"; expected one of "std", "var"' })
    expect(decode({ keepFlat: "yes" })).toEqual({ ok: false, message: 'keepFlat: got "yes"; expected true or false' })
    expect(decode({ kk: 1 })).toEqual({ ok: false, message: "--option kk: unknown option; did you mean k?" })
  })

  test("a default outside its own range is the author's bug, refused at once", () => {
    expect(() => option.number(0, { min: 1 })).toThrow(/outside its own range/)
    expect(() => option.oneOf(["a", "b"], "c" as "a")).toThrow(/not one of/)
  })
})
