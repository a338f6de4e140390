/** Promise-based policy work inside a command's Effect: user errors stay typed failures, anything else is a defect. */
import { Effect } from "effect"
import { isUserError, type UserError } from "../../core/host.ts"

export const userPromise = <A>(f: () => Promise<A>): Effect.Effect<A, UserError> =>
  Effect.flatMap(
    Effect.promise(() =>
      f().then(
        (value) => ({ ok: true as const, value }),
        (e: unknown) => {
          if (isUserError(e)) return { ok: false as const, error: e }
          throw e
        }
      )
    ),
    (r) => (r.ok ? Effect.succeed(r.value) : Effect.fail(r.error))
  )
