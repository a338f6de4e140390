/** An EnvCatalog over the plugin registry (every registered env, built-in or user plugin). */
import { descriptionOf, lookupEntry, type Registry, UnknownIdError } from "../../core/host.ts"
import type { EnvCatalog } from "./catalog.ts"

export const registryCatalog = (registry: Registry["Service"]): EnvCatalog => ({
  resolve: (id) => {
    const found = lookupEntry(registry.data, "envs", id)
    return found instanceof UnknownIdError ? { ok: false, message: found.message } : { ok: true, id: found.fullId, spec: found.value }
  },
  list: () => registry.list("envs").map((e) => ({ id: e.fullId, description: descriptionOf(e.value) }))
})
