/** The built-in CrossScorer backends (docs/design.md §4, §6), registered as plugin "scorers". */
import { definePlugin } from "../../core/contracts/index.ts"
import { cpuScorerSpec } from "./cpu.ts"

export default definePlugin({ name: "scorers", version: "0.1.0", scorers: [cpuScorerSpec] })
