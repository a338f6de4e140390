/**
 * The built-in plugins, listed explicitly (no import side effects): adding a built-in is adding
 * it here. The CLI (cli.ts) and tests register exactly this list, and sweep workers load it by
 * the path cli.ts gives them (RAGEN_BUILTINS; nothing under core/ or plugins/ imports this file);
 * a user's ragen-bench.config.ts and --plugin files add to it.
 */
import type { PluginInput } from "./core/contracts/index.ts"
import algorithms from "./algorithms/plugin.ts"
import bullmq from "./plugins/bullmq/plugin.ts"
import filters from "./algorithms/filters/plugin.ts"
import envs from "./envs/plugin.ts"
import leaderboard from "./plugins/leaderboard/plugin.ts"
import openai from "./plugins/openai/plugin.ts"
import scorers from "./plugins/scorers/plugin.ts"
import sinks from "./plugins/sinks/plugin.ts"
import sweep from "./plugins/sweep/plugin.ts"
import tinylm from "./plugins/tinylm/plugin.ts"
import webgpu from "./plugins/webgpu/plugin.ts"

export const builtinPlugins: ReadonlyArray<PluginInput> = [envs, algorithms, filters, tinylm, scorers, sinks, leaderboard, sweep, bullmq, openai, webgpu]
