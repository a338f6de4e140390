/**
 * The env server protocol (docs/env-server.md), transport-free: a decoded request in, a status
 * and a JSON body out. HTTP and stdio both call `handle`.
 *   create {env, seed?, options?}  → {id, observation, env, maxTurns, actionBudget, instructions}
 *   step   {id, action}            → {observation, reward, terminated, truncated, info}
 *   reset  {id, seed?}             → {observation}
 *   envs                           → {envs: [{id, description}]}
 *   close  {id}                    → {closed: true}
 * Errors: 400 {error} for a body that does not decode, 404 for an unknown (or expired) session
 * or env id.
 */
import { Schema } from "effect"
import { decodeSync } from "../../core/schema/decode.ts"
import { makeEnv, type EnvCatalog } from "./catalog.ts"
import type { SessionStore } from "./sessions.ts"

const Seed = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 ** 32 - 1 }))

export const CreateRequest = Schema.Struct({
  env: Schema.String,
  seed: Schema.optional(Seed),
  options: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
})
export const StepRequest = Schema.Struct({ id: Schema.String, action: Schema.String })
export const ResetRequest = Schema.Struct({ id: Schema.String, seed: Schema.optional(Seed) })
export const IdRequest = Schema.Struct({ id: Schema.String })

export type Op = "create" | "step" | "reset" | "envs" | "close"
export const OPS: ReadonlyArray<Op> = ["create", "step", "reset", "envs", "close"]

export interface Reply {
  readonly status: number
  readonly body: Record<string, unknown>
}

const bad = (message: string): Reply => ({ status: 400, body: { error: message } })
const notFound = (message: string): Reply => ({ status: 404, body: { error: message } })

export interface Server {
  readonly catalog: EnvCatalog
  readonly sessions: SessionStore
}

export const handle = (srv: Server, op: Op, body: unknown): Reply => {
  switch (op) {
    case "envs":
      return { status: 200, body: { envs: srv.catalog.list() } }
    case "create": {
      const r = decodeSync(CreateRequest, body)
      if (!r.ok) return bad(`create: ${r.message}; expected {"env": "countdown-v1", "seed": 0, "options": {}}`)
      const found = srv.catalog.resolve(r.value.env)
      if (!found.ok) return notFound(found.message)
      const made = makeEnv(found.spec, r.value.options ?? {})
      if (!made.ok) return bad(made.message)
      const observation = made.env.reset(r.value.seed ?? 0)
      const s = srv.sessions.create(found.id, made.env)
      return {
        status: 200,
        body: { id: s.id, observation, env: found.id, maxTurns: found.spec.maxTurns, actionBudget: found.spec.actionBudget, instructions: found.spec.instructions(made.options) }
      }
    }
    case "step": {
      const r = decodeSync(StepRequest, body)
      if (!r.ok) return bad(`step: ${r.message}; expected {"id": "...", "action": "..."}`)
      const s = srv.sessions.get(r.value.id)
      if (!s) return notFound(`unknown or expired session "${r.value.id}"; create one with POST /create`)
      if (s.env.done) return bad(`session "${r.value.id}" has ended; POST /reset to start a new episode`)
      const out = s.env.step(r.value.action)
      return { status: 200, body: { observation: out.observation, reward: out.reward, terminated: out.terminated, truncated: out.truncated, info: out.info } }
    }
    case "reset": {
      const r = decodeSync(ResetRequest, body)
      if (!r.ok) return bad(`reset: ${r.message}; expected {"id": "...", "seed": 0}`)
      const s = srv.sessions.get(r.value.id)
      if (!s) return notFound(`unknown or expired session "${r.value.id}"`)
      return { status: 200, body: { observation: s.env.reset(r.value.seed ?? 0) } }
    }
    case "close": {
      const r = decodeSync(IdRequest, body)
      if (!r.ok) return bad(`close: ${r.message}`)
      return srv.sessions.delete(r.value.id) ? { status: 200, body: { closed: true } } : notFound(`unknown or expired session "${r.value.id}"`)
    }
  }
}

/**
 * `handle`, but awaiting an env's resetAsync/stepAsync when it has them (remote-backed envs throw
 * on sync reset/step). Both transports call this; sync envs give the same replies as `handle`.
 */
export const handleAsync = async (srv: Server, op: Op, body: unknown): Promise<Reply> => {
  if (op !== "create" && op !== "step" && op !== "reset") return handle(srv, op, body)
  try {
    return await handleEnvOp(srv, op, body)
  } catch (e) {
    // A remote backend failing (down, timeout) is not the client's fault: 502, with its message.
    return { status: 502, body: { error: String((e as Error)?.message ?? e) } }
  }
}

const handleEnvOp = async (srv: Server, op: "create" | "step" | "reset", body: unknown): Promise<Reply> => {
  if (op === "create") {
    const r = decodeSync(CreateRequest, body)
    if (!r.ok) return handle(srv, op, body)
    const found = srv.catalog.resolve(r.value.env)
    if (!found.ok) return notFound(found.message)
    const made = makeEnv(found.spec, r.value.options ?? {})
    if (!made.ok) return bad(made.message)
    if (!made.env.resetAsync) return handle(srv, op, body)
    const observation = await made.env.resetAsync(r.value.seed ?? 0)
    const s = srv.sessions.create(found.id, made.env)
    return {
      status: 200,
      body: { id: s.id, observation, env: found.id, maxTurns: found.spec.maxTurns, actionBudget: found.spec.actionBudget, instructions: found.spec.instructions(made.options) }
    }
  }
  const s = typeof (body as { id?: unknown } | null)?.id === "string" ? srv.sessions.get((body as { id: string }).id) : undefined
  if (!s || (op === "step" ? !s.env.stepAsync : !s.env.resetAsync)) return handle(srv, op, body)
  if (op === "step") {
    const r = decodeSync(StepRequest, body)
    if (!r.ok || s.env.done) return handle(srv, op, body)
    const out = await s.env.stepAsync!(r.value.action)
    return { status: 200, body: { observation: out.observation, reward: out.reward, terminated: out.terminated, truncated: out.truncated, info: out.info } }
  }
  const r = decodeSync(ResetRequest, body)
  if (!r.ok) return handle(srv, op, body)
  return { status: 200, body: { observation: await s.env.resetAsync!(r.value.seed ?? 0) } }
}
