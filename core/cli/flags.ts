/**
 * Parsing of CLI flag values shared by the commands: numbers with their bounds, and repeatable
 * flags as lists. A bad value is a UsageError naming the flag and what it must be.
 */
import { Effect } from "effect"
import { UsageError } from "../errors.ts"

export interface NumberRule {
  readonly integer?: boolean
  readonly min?: number
  readonly max?: number
  /** Strictly greater than 0 (a learning rate). */
  readonly positive?: boolean
}

const describe = (r: NumberRule): string => {
  const kind = r.integer ? "an integer" : "a number"
  if (r.min !== undefined && r.max !== undefined) return r.integer ? `${kind} in ${r.min}..${r.max}` : `${kind} in [${r.min}, ${r.max}]`
  return r.positive ? `${kind} > 0` : r.min !== undefined ? `${kind} ≥ ${r.min}` : kind
}

/** The flag's number, or undefined when the flag was not given. */
export const numberFlag = (value: unknown, field: string, rule: NumberRule = {}): Effect.Effect<number | undefined, UsageError> => {
  if (value === undefined) return Effect.succeed(undefined)
  const n = Number(value)
  const ok = (rule.integer ? Number.isInteger(n) : Number.isFinite(n)) && (rule.min === undefined || n >= rule.min) && (rule.max === undefined || n <= rule.max) && (!rule.positive || n > 0)
  return ok ? Effect.succeed(n) : Effect.fail(new UsageError({ field, message: `${field} must be ${describe(rule)}, got "${value}"` }))
}

/** The flag's number, or `dflt` when the flag was not given. */
export const numberFlagOr = (value: unknown, field: string, dflt: number, rule: NumberRule = {}): Effect.Effect<number, UsageError> => Effect.map(numberFlag(value, field, rule), (n) => n ?? dflt)

/** A repeatable flag's values (cac gives one value or an array). */
export const listFlag = (x: unknown): string[] => (x === undefined ? [] : Array.isArray(x) ? x.map(String) : [String(x)])
