/** The "tinylm" plugin: the embedded GPT policy (spec.ts) and its `sft` command. */
import { definePlugin } from "../../core/contracts/index.ts"
import sft from "./sft-command.ts"
import { tinylmSpec } from "./spec.ts"

export default definePlugin({ name: "tinylm", version: "0.1.0", policies: [tinylmSpec], commands: [sft] })
