/**
 * Options without learning Schema first: a plugin's options declared as plain values that build
 * the Schema (the kit re-exports Schema for anything these do not cover).
 *   options({ minRange: option.number(0.5, { min: 0 }), metric: option.oneOf(["std", "var"], "std"), keepFlat: option.boolean(false) })
 * Every field has a default (decoding fills it, the resolved config records it); a value outside
 * its range or set is a one-line error naming the option, what was given and what is allowed.
 */
import { Schema } from "effect"
import { withDefault } from "../contracts/defaults.ts"

export interface NumberRange {
  /** Smallest allowed value (inclusive). */
  readonly min?: number
  /** Largest allowed value (inclusive). */
  readonly max?: number
  /** Whole numbers only. */
  readonly integer?: boolean
}

const inRange = (v: number, r: NumberRange): boolean => (r.integer ? Number.isInteger(v) : Number.isFinite(v)) && (r.min === undefined || v >= r.min) && (r.max === undefined || v <= r.max)

/** A default outside its own range is the plugin author's bug: say so when the plugin loads. */
const checkDefault = (ok: boolean, what: string): void => {
  if (!ok) throw new Error(`option default ${what}`)
}

const number = (dflt: number, range: NumberRange = {}) => {
  checkDefault(inRange(dflt, range), `${dflt} is outside its own range ${JSON.stringify(range)}`)
  const base = range.integer ? Schema.Int : Schema.Finite
  const { min, max } = range
  if (min !== undefined && max !== undefined) return withDefault(base.check(Schema.isBetween({ minimum: min, maximum: max })), dflt)
  if (min !== undefined) return withDefault(base.check(Schema.isGreaterThanOrEqualTo(min)), dflt)
  if (max !== undefined) return withDefault(base.check(Schema.isLessThanOrEqualTo(max)), dflt)
  return withDefault(base, dflt)
}

const oneOf = <const L extends ReadonlyArray<string | number | boolean>>(values: L, dflt: L[number]) => {
  checkDefault(values.includes(dflt), `${JSON.stringify(dflt)} is not one of ${JSON.stringify(values)}`)
  return withDefault(Schema.Literals(values), dflt)
}

const boolean = (dflt: boolean) => withDefault(Schema.Boolean, dflt)

/** Field builders: `option.number(default, { min, max, integer })`, `option.oneOf([...], default)`, `option.boolean(default)`. */
export const option = { number, oneOf, boolean }

/** The options Schema of a plugin (a filter's `options`): a struct of `option.*` fields or any Schema. */
export const options = <F extends Schema.Struct.Fields>(fields: F) => Schema.Struct(fields)
