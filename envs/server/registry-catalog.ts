/** An EnvCatalog over the plugin registry (every registered env, built-in or user plugin). */
import { Cause, Effect, Exit } from "effect"
import { descriptionOf, type Registry } from "../../core/registry.ts"
import type { EnvCatalog } from "./catalog.ts"

export const registryCatalog = (registry: Registry["Service"]): EnvCatalog => ({
  resolve: (id) => {
    const exit = Effect.runSyncExit(registry.resolve("envs", id))
    if (Exit.isSuccess(exit)) return { ok: true, id: exit.value.fullId, spec: exit.value.value }
    const e = Cause.squash(exit.cause) as { message?: string }
    return { ok: false, message: String(e?.message ?? e) }
  },
  list: () => registry.list("envs").map((e) => ({ id: e.fullId, description: descriptionOf(e.value) }))
})
