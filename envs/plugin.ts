/** The six built-in environments (one folder each), registered as the "envs" plugin. */
import { definePlugin } from "../core/contracts/index.ts"
import type { EnvSpec } from "../core/contracts/index.ts"
import { frozenLakeSpec } from "./frozenlake/env.ts"
import { sokobanSpec } from "./sokoban/env.ts"
import { countdownSpec } from "./countdown/env.ts"
import { metaMathQASpec, metaMathQAV2Spec } from "./metamathqa/env.ts"
import { searchQASpec } from "./searchqa/env.ts"
import { webShopSpec, webShopV2Spec } from "./webshop/env.ts"
import envCommand from "./cli/env.ts"
import play from "./cli/play.ts"

// Each env folder adds its spec here (one import, one entry). "metamathqa" resolves to v2 (the
// column-by-column teacher, docs/decisions.md#issue-26); the presets whose records were run on v1
// name metamathqa-v1.
const specs: EnvSpec[] = [sokobanSpec, frozenLakeSpec, countdownSpec, metaMathQASpec, metaMathQAV2Spec, searchQASpec, webShopSpec, webShopV2Spec]

export default definePlugin({ name: "envs", version: "0.1.0", envs: specs, commands: [envCommand, play] })
