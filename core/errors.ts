/**
 * Typed, user-facing errors. Each carries a message that names the field and the fix;
 * the CLI prints `error: <message>` and exits 2, with no stack trace.
 */
import { Effect, Schema } from "effect"

export class DuplicateIdError extends Schema.TaggedError<DuplicateIdError>()("DuplicateIdError", {
  kind: Schema.String,
  id: Schema.String,
  plugins: Schema.Array(Schema.String),
  message: Schema.String
}) {}

export class UnknownIdError extends Schema.TaggedError<UnknownIdError>()("UnknownIdError", {
  kind: Schema.String,
  id: Schema.String,
  known: Schema.Array(Schema.String),
  message: Schema.String
}) {}

/** Bad user input: a flag, a config field, a file. `field` names what to fix. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  field: Schema.String,
  message: Schema.String
}) {}

/** A file that does not decode through its schema. */
export class FileFormatError extends Schema.TaggedError<FileFormatError>()("FileFormatError", {
  path: Schema.String,
  message: Schema.String
}) {}

export type UserError = DuplicateIdError | UnknownIdError | UsageError | FileFormatError

const userTags = new Set(["DuplicateIdError", "UnknownIdError", "UsageError", "FileFormatError"])
export const isUserError = (e: unknown): e is UserError => typeof e === "object" && e !== null && userTags.has((e as { _tag?: string })._tag ?? "")

/** A promise as an Effect: a user error stays a typed failure, anything else is a defect (a bug). */
export const attemptPromise = <A>(f: (signal: AbortSignal) => Promise<A>): Effect.Effect<A, UserError> =>
  Effect.tryPromise({ try: f, catch: (e) => e }).pipe(Effect.catch((e) => (isUserError(e) ? Effect.fail(e) : Effect.die(e))))

/** The same for synchronous code. */
export const attemptSync = <A>(f: () => A): Effect.Effect<A, UserError> => Effect.try({ try: f, catch: (e) => e }).pipe(Effect.catch((e) => (isUserError(e) ? Effect.fail(e) : Effect.die(e))))
