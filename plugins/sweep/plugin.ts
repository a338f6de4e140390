/** The sweep runner plugin: `ragen-bench sweep`, the local worker-pool executor and the sweep presets. */
import { definePlugin } from "../../core/contracts/index.ts"
import sweep from "./command.ts"
import { localExecutor } from "./executor.ts"
import { presets } from "./presets/index.ts"

export default definePlugin({ name: "sweep", version: "0.1.0", commands: [sweep], executors: [localExecutor], presets })
