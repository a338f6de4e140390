/** The six built-in environments (one folder each), registered as the "envs" plugin. */
import { definePlugin } from "../core/contracts/index.ts"
import type { EnvSpec } from "../core/contracts/index.ts"

// Each env folder adds its spec here (one import, one entry).
const specs: EnvSpec[] = []

export default definePlugin({ name: "envs", version: "0.1.0", envs: specs })
