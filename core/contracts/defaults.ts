/**
 * Schema helpers every options schema uses: a field with a default filled in at decoding (the
 * resolved config records it), and the common number checks. Plugin authors use them too.
 */
import { Effect, Schema } from "effect"

/** `s`, with `v` when the input leaves the field out. */
export const withDefault = <S extends Schema.Top>(s: S, v: S["Encoded"]) => s.pipe(Schema.withDecodingDefault(Effect.succeed(v)))

export const PosInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
export const NonNegInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
export const NonNeg = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))
export const Unit = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))
