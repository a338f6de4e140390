/** The leaderboard plugin: `ragen-bench leaderboard` (build, verify) over result folders, and `results compact`. */
import { definePlugin } from "../../core/contracts/index.ts"
import leaderboard from "./command.ts"
import results from "./compact-command.ts"

export default definePlugin({ name: "leaderboard", version: "0.1.0", commands: [leaderboard, results] })
