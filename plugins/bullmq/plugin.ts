/**
 * The BullMQ plugin: sweeps across machines through a Redis job queue. Contributes the "bullmq"
 * sweep executor (`ragen-bench sweep <spec> --queue redis://…`) and the `worker` command.
 */
import { definePlugin } from "../../core/contracts/index.ts"
import { bullmqExecutor } from "./executor.ts"
import worker from "./worker-command.ts"

export default definePlugin({ name: "bullmq", version: "0.1.0", commands: [worker], executors: [bullmqExecutor] })
