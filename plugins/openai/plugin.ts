/** The "openai" plugin: the remote policy, and the `serve`, `eval` and `diagnose` commands. */
import { definePlugin } from "../../core/contracts/index.ts"
import diagnoseCommand from "./diagnose-command.ts"
import evalCommand from "./eval-command.ts"
import serveCommand from "./serve-command.ts"
import { openaiSpec } from "./spec.ts"

export default definePlugin({ name: "openai", version: "0.1.0", policies: [openaiSpec], commands: [serveCommand, evalCommand, diagnoseCommand] })
