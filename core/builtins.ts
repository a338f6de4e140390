/**
 * The built-in plugins, listed explicitly (no import side effects). Each area owns its
 * plugin object; adding a built-in is adding it to this list.
 */
import type { PluginInput } from "./contracts/index.ts"

export const builtinPlugins = async (): Promise<PluginInput[]> => {
  const mods = await Promise.all([
    import("../envs/plugin.ts"),
    import("../algorithms/plugin.ts"),
    import("../algorithms/filters/plugin.ts"),
    import("../plugins/tinylm/plugin.ts"),
    import("../plugins/scorers/plugin.ts")
  ])
  return mods.map((m) => m.default)
}
