/** The built-in algorithms (docs/design.md §3): PPO, GRPO (with the Dr.GRPO variant) and DAPO. */
import { definePlugin } from "../core/contracts/index.ts"
import { dapo } from "./dapo.ts"
import { grpo } from "./grpo.ts"
import { ppo } from "./ppo.ts"

export default definePlugin({ name: "algorithms", version: "0.1.0", algorithms: [ppo, grpo, dapo] })
