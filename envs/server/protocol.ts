/**
 * The env server protocol (docs/env-server.md), transport-free: a decoded request in, a status
 * and a JSON body out. HTTP and stdio both call `handle`.
 *   create {env, seed?, actionBudget?, maxTurns?, formatPenalty?, options?}
 *                                  → {id, observation, env, maxTurns, actionBudget, formatPenalty, instructions, resources?}
 *   step   {id, action}            → {observation, reward, terminated, truncated, info}
 *   reset  {id, seed?}             → {observation}
 *   envs                           → {envs: [{id, description}]}
 *   close  {id}                    → {closed: true}
 * Errors: 400 {error} for a body that does not decode, 404 for an unknown (or expired) session
 * or env id. Options that name files or URLs are operator settings (operator.ts): a client
 * names one of the server's resources there, and the reply says which ({resources: {field:
 * {name, sha256}}}).
 *
 * A step's `action` is the agent's whole reply, played as the trainer plays a turn
 * (core/train/rollout.ts, with the functions of core/prompt.ts): the reply is parsed
 * (`parseReply`: "<think> … </think> <answer> Up </answer>", or "<answer> Up </answer>"); one that
 * does not parse costs the format penalty, the env is not stepped and the same observation comes
 * back with the format note in front; an action the env rejects (info.valid false) costs the
 * penalty on top of the env's reward. After `maxTurns` replies the episode ends (truncated), as
 * the trainer's episodes do. info.formatValid says whether the reply parsed.
 */
import { Schema } from "effect"
import { actionBudgetFor, DEFAULT_FORMAT_PENALTY, decodeSync, parseReply, turnPenalty, withFormatNote } from "../../core/host.ts"
import type { Env, EnvSpec, StepResult } from "../../core/contracts/index.ts"
import { makeEnv, type EnvCatalog } from "./catalog.ts"
import { resolveOperatorOptions, type Resources } from "./operator.ts"
import { redactOperator } from "./redact.ts"
import type { Episode, Session, SessionStore } from "./sessions.ts"

const Seed = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 ** 32 - 1 }))

export const CreateRequest = Schema.Struct({
  env: Schema.String,
  seed: Schema.optional(Seed),
  /** Steps per episode before truncation; default the env's own (e.g. metamathqa with maxAttempts k needs k). */
  actionBudget: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000 }))),
  /** Replies per episode, parsed or not, before it ends truncated (the trainer's maxTurns); default the env's. */
  maxTurns: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000 }))),
  /** Added to a turn's reward when the reply does not parse or the env rejects its action (the trainer's formatPenalty). */
  formatPenalty: Schema.optional(Schema.Finite.check(Schema.isBetween({ minimum: -1000, maximum: 1000 }))),
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
  /** Files and URLs the operator offers (operator.ts); none when absent. */
  readonly resources?: Resources
}

const NO_RESOURCES: Resources = new Map()

type Prepared =
  | { reply: Reply }
  | {
      id: string
      spec: EnvSpec<any>
      env: Env
      options: unknown
      seed: number
      budget: number
      maxTurns: number
      formatPenalty: number
      used: Record<string, unknown>
      prepare: ReadonlyArray<() => Promise<unknown>>
    }

/** Decode a create request and build its env (operator fields resolved first); no reset yet. */
const prepareCreate = (srv: Server, body: unknown, build: boolean): Prepared => {
  const r = decodeSync(CreateRequest, body)
  if (!r.ok) return { reply: bad(`create: ${r.message}; expected {"env": "countdown-v1", "seed": 0, "options": {}}`) }
  const found = srv.catalog.resolve(r.value.env)
  if (!found.ok) return { reply: notFound(found.message) }
  const resolved = resolveOperatorOptions(found.spec, (r.value.options ?? {}) as Record<string, unknown>, srv.resources ?? NO_RESOURCES)
  if (!resolved.ok) return { reply: bad(resolved.message) }
  // The request's budget, else the env's under these options (MetaMathQA: maxAttempts).
  const decoded = decodeSync(found.spec.options, resolved.value.options)
  const budget = r.value.actionBudget ?? (decoded.ok ? actionBudgetFor(found.spec, decoded.value) : found.spec.actionBudget)
  const base = {
    id: found.id,
    spec: found.spec,
    seed: r.value.seed ?? 0,
    budget,
    maxTurns: r.value.maxTurns ?? found.spec.maxTurns,
    formatPenalty: r.value.formatPenalty ?? DEFAULT_FORMAT_PENALTY,
    used: resolved.value.used,
    prepare: resolved.value.prepare
  }
  if (!build) return { ...base, env: undefined as unknown as Env, options: resolved.value.options }
  const made = makeEnv(found.spec, resolved.value.options, budget)
  if (!made.ok) return { reply: bad(made.message) }
  return { ...base, env: made.env, options: made.options }
}

const created = (srv: Server, p: Exclude<Prepared, { reply: Reply }>, observation: string): Reply => {
  const s = srv.sessions.create(p.id, p.env, { maxTurns: p.maxTurns, formatPenalty: p.formatPenalty, turns: 0, observation, ended: false })
  return {
    status: 200,
    body: {
      id: s.id,
      observation,
      env: p.id,
      maxTurns: p.maxTurns,
      actionBudget: p.budget,
      formatPenalty: p.formatPenalty,
      instructions: p.spec.instructions(p.options),
      ...(Object.keys(p.used).length > 0 ? { resources: p.used } : {})
    }
  }
}

/** The action inside a reply, or undefined when the reply does not parse (the env is then not stepped). */
const actionOf = (reply: string): string | undefined => {
  const parsed = parseReply(reply)
  return parsed.valid ? parsed.action : undefined
}

/** A turn's reply: the env's step (undefined: the reply did not parse) with the trainer's penalty and turn limit. */
const turnReply = (e: Episode, out: StepResult | undefined): Reply => {
  e.turns++
  const outOfTurns = e.turns >= e.maxTurns
  const body = out
    ? {
        observation: out.observation,
        reward: out.reward + turnPenalty(true, out.info.valid, e.formatPenalty),
        terminated: out.terminated,
        truncated: out.truncated || (!out.terminated && outOfTurns),
        info: { ...out.info, formatValid: true }
      }
    : {
        observation: withFormatNote(e.observation),
        reward: turnPenalty(false, false, e.formatPenalty),
        terminated: false,
        truncated: outOfTurns,
        info: { success: false, valid: false, effective: false, formatValid: false }
      }
  e.observation = body.observation
  e.ended = body.terminated || body.truncated
  return { status: 200, body }
}

const started = (e: Episode, observation: string): Reply => {
  e.turns = 0
  e.observation = observation
  e.ended = false
  return { status: 200, body: { observation } }
}

const ended = (s: Session): Reply => bad(`session "${s.id}" has ended; POST /reset to start a new episode`)

export const handle = (srv: Server, op: Op, body: unknown): Reply => {
  switch (op) {
    case "envs":
      return { status: 200, body: { envs: srv.catalog.list() } }
    case "create": {
      const p = prepareCreate(srv, body, true)
      if ("reply" in p) return p.reply
      return created(srv, p, p.env.reset(p.seed))
    }
    case "step": {
      const r = decodeSync(StepRequest, body)
      if (!r.ok) return bad(`step: ${r.message}; expected {"id": "...", "action": "..."}`)
      const s = srv.sessions.get(r.value.id)
      if (!s) return notFound(`unknown or expired session "${r.value.id.slice(0, 100)}"; create one with POST /create`)
      if (s.episode.ended) return ended(s)
      const action = actionOf(r.value.action)
      return turnReply(s.episode, action === undefined ? undefined : s.env.step(action))
    }
    case "reset": {
      const r = decodeSync(ResetRequest, body)
      if (!r.ok) return bad(`reset: ${r.message}; expected {"id": "...", "seed": 0}`)
      const s = srv.sessions.get(r.value.id)
      if (!s) return notFound(`unknown or expired session "${r.value.id.slice(0, 100)}"`)
      return started(s.episode, s.env.reset(r.value.seed ?? 0))
    }
    case "close": {
      const r = decodeSync(IdRequest, body)
      if (!r.ok) return bad(`close: ${r.message}`)
      return srv.sessions.delete(r.value.id) ? { status: 200, body: { closed: true } } : notFound(`unknown or expired session "${r.value.id.slice(0, 100)}"`)
    }
  }
}

/**
 * `handle`, but loading operator files without blocking and awaiting an env's resetAsync/
 * stepAsync when it has them (remote-backed envs throw on sync reset/step). Both transports
 * call this; sync envs give the same replies as `handle`.
 */
export const handleAsync = async (srv: Server, op: Op, body: unknown): Promise<Reply> => {
  if (op !== "create" && op !== "step" && op !== "reset") return handle(srv, op, body)
  try {
    return await handleEnvOp(srv, op, body)
  } catch (e) {
    // A remote backend failing (down, timeout) is not the client's fault: 502, with its message
    // less the operator's URLs and paths.
    return { status: 502, body: { error: redactOperator(String((e as Error)?.message ?? e), srv.resources) } }
  }
}

const handleEnvOp = async (srv: Server, op: "create" | "step" | "reset", body: unknown): Promise<Reply> => {
  if (op === "create") {
    const pre = prepareCreate(srv, body, false)
    if ("reply" in pre) return pre.reply
    for (const load of pre.prepare) {
      try {
        await load()
      } catch (e) {
        return { status: 502, body: { error: `an operator resource of this server cannot be loaded: ${redactOperator(String((e as Error)?.message ?? e), srv.resources)}` } }
      }
    }
    const p = prepareCreate(srv, body, true)
    if ("reply" in p) return p.reply
    return created(srv, p, p.env.resetAsync ? await p.env.resetAsync(p.seed) : p.env.reset(p.seed))
  }
  const s = typeof (body as { id?: unknown } | null)?.id === "string" ? srv.sessions.get((body as { id: string }).id) : undefined
  if (!s || (op === "step" ? !s.env.stepAsync : !s.env.resetAsync)) return handle(srv, op, body)
  if (op === "step") {
    const r = decodeSync(StepRequest, body)
    if (!r.ok || s.episode.ended) return handle(srv, op, body)
    const action = actionOf(r.value.action)
    return turnReply(s.episode, action === undefined ? undefined : await s.env.stepAsync!(action))
  }
  const r = decodeSync(ResetRequest, body)
  if (!r.ok) return handle(srv, op, body)
  return started(s.episode, await s.env.resetAsync!(r.value.seed ?? 0))
}
