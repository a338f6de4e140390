/**
 * The typed, user-facing errors of the contracts. Each carries a message that names the field
 * and the fix; the CLI prints `error: <message>` and exits 2, with no stack trace.
 */
import { Schema } from "effect"

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
