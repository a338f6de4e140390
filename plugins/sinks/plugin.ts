/**
 * The built-in metric sinks (core/contracts/sink.ts), registered as plugin "sinks": `csv` and
 * `tensorboard`. metrics.jsonl is not among them: the results store always writes it.
 */
import { definePlugin } from "../../core/contracts/index.ts"
import { csvSinkSpec } from "./csv.ts"
import { tensorBoardSinkSpec } from "./tensorboard.ts"

export default definePlugin({ name: "sinks", version: "0.1.0", sinks: [csvSinkSpec, tensorBoardSinkSpec] })
