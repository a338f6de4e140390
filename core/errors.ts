/**
 * Typed, user-facing errors (defined in core/contracts/errors.ts, where plugin authors find
 * them) and the helpers that keep them typed across promises and synchronous code.
 */
import { Effect } from "effect"
import type { UserError } from "./contracts/errors.ts"

export { DuplicateIdError, FileFormatError, UnknownIdError, UsageError, type UserError } from "./contracts/errors.ts"

const userTags = new Set(["DuplicateIdError", "UnknownIdError", "UsageError", "FileFormatError"])
export const isUserError = (e: unknown): e is UserError => typeof e === "object" && e !== null && userTags.has((e as { _tag?: string })._tag ?? "")

/** A promise as an Effect: a user error stays a typed failure, anything else is a defect (a bug). */
export const attemptPromise = <A>(f: (signal: AbortSignal) => Promise<A>): Effect.Effect<A, UserError> =>
  Effect.tryPromise({ try: f, catch: (e) => e }).pipe(Effect.catch((e) => (isUserError(e) ? Effect.fail(e) : Effect.die(e))))

/** The same for synchronous code. */
export const attemptSync = <A>(f: () => A): Effect.Effect<A, UserError> => Effect.try({ try: f, catch: (e) => e }).pipe(Effect.catch((e) => (isUserError(e) ? Effect.fail(e) : Effect.die(e))))
