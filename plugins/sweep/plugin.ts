/** The sweep runner plugin: `ragen-bench sweep` and the local worker-pool executor. */
import { definePlugin } from "../../core/contracts/index.ts"
import sweep from "./command.ts"
import { localExecutor } from "./executor.ts"

export default definePlugin({ name: "sweep", version: "0.1.0", commands: [sweep], executors: [localExecutor] })
