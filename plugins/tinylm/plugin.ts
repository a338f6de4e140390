/** The "tinylm" plugin: the embedded GPT policy (spec.ts), its shipped warm starts and its `sft` and `warmstart` commands. */
import { definePlugin } from "../../core/contracts/index.ts"
import sft from "./sft-command.ts"
import { tinylmSpec } from "./spec.ts"
import { shippedWarmStarts } from "./warm-starts.ts"
import warmstart from "./warmstart-command.ts"

/** For other plugins (openai's `serve`): the policy's factory, its options and its type. */
export type { TinyLMPolicy } from "./policy.ts"
export { makeTinyLM, TinyLMOptions } from "./spec.ts"

export default definePlugin({ name: "tinylm", version: "0.1.0", policies: [tinylmSpec], commands: [sft, warmstart], warmstarts: shippedWarmStarts() })
