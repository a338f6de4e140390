/**
 * `ragen-bench env show <env>`: the first observation and (with --teacher) the teacher's whole
 * trace. `ragen-bench env serve`: any registered env over HTTP or stdin/stdout JSON lines
 * (docs/env-server.md).
 */
import { Console, Effect } from "effect"
import { defineCommand, derive, listFlag, Registry, terminalSafe, UsageError } from "../../core/host.ts"
import { defaultAllowedHosts, hostNameOf, isLoopback, startHttp } from "../server/http.ts"
import { loadResources, parseResourceFlags } from "../server/operator.ts"
import { registryCatalog } from "../server/registry-catalog.ts"
import { SessionStore } from "../server/sessions.ts"
import { serveStdio } from "../server/stdio.ts"
import { buildEnv, envArg, fmtInfo, intFlag, numberFlag, resetEnv, stepEnv } from "./env-common.ts"

const MAX_SHOWN_STEPS = 1000

const show = (envId: unknown, opts: Record<string, any>) =>
  Effect.gen(function* () {
    const seed = yield* intFlag(opts.seed, "--seed", 0)
    const epsilon = yield* numberFlag(opts.epsilon, "--epsilon", 0, 0, 1)
    const reasoningNoise = yield* numberFlag(opts.reasoningNoise, "--reasoning-noise", 0, 0, 1)
    const { fullId, spec, env, options } = yield* buildEnv(envId, opts.option)
    const lines: string[] = [
      `${fullId}  seed ${seed}  maxTurns ${spec.maxTurns}  actionBudget ${spec.actionBudget}`,
      "",
      "instructions:",
      spec.instructions(options),
      "",
      "observation:",
      yield* Effect.promise(() => resetEnv(env, seed))
    ]
    if (opts.teacher) {
      const rng = derive(seed, "env-show", "teacher")
      let total = 0
      for (let k = 1; !env.done && k <= MAX_SHOWN_STEPS; k++) {
        const t = env.teach({ epsilon, reasoningNoise }, rng)
        const g = env.gradeReasoning(env.state(), t.reasoning, t.action)
        const r = yield* Effect.promise(() => stepEnv(env, t.action))
        total += r.reward
        lines.push(
          "",
          `step ${k}`,
          `  reasoning: ${t.reasoning}`,
          `  action:    ${t.action}${t.action !== t.intendedAction ? `   (noise; the teacher meant ${t.intendedAction})` : ""}`,
          `  grade:     factAccuracy ${g.factAccuracy.toFixed(2)}  consistency ${g.consistency.toFixed(2)}`,
          `  reward ${r.reward}  terminated ${r.terminated}  truncated ${r.truncated}  info ${fmtInfo(r.info)}`,
          "observation:",
          r.observation
        )
      }
      lines.push("", `return ${Number(total.toFixed(6))}`)
    }
    yield* Console.log(lines.join("\n"))
  })

const serve = (opts: Record<string, any>) =>
  Effect.gen(function* () {
    const registry = yield* Registry
    const maxSessions = yield* intFlag(opts.maxSessions, "--max-sessions", 256, 1, 1_000_000)
    const ttl = yield* intFlag(opts.ttlSeconds, "--ttl-seconds", 900, 1, 7 * 24 * 3600)
    const parsed = parseResourceFlags(listFlag(opts.resource))
    if (!parsed.ok) return yield* new UsageError({ field: "--resource", message: parsed.message })
    const resources = yield* Effect.tryPromise({
      try: () => loadResources(parsed.value),
      catch: (e) => new UsageError({ field: "--resource", message: terminalSafe((e as Error).message) })
    })
    const srv = { catalog: registryCatalog(registry), sessions: new SessionStore({ maxSessions, ttlMs: ttl * 1000 }), resources }
    if (resources.size > 0) console.error(`operator resources: ${[...resources.values()].map((r) => `${r.name} (${r.kind})`).join(", ")}`)
    if (opts.stdio) {
      if (opts.port !== undefined) return yield* new UsageError({ field: "--stdio", message: "use either --stdio or --port, not both" })
      console.error(`env server on stdin/stdout (JSON lines); ${srv.catalog.list().length} envs`)
      return yield* Effect.promise(() => serveStdio(srv, process.stdin, process.stdout))
    }
    const port = yield* intFlag(opts.port, "--port", 8765, 0, 65535)
    const host = typeof opts.host === "string" ? opts.host : "127.0.0.1"
    const extraHosts = listFlag(opts.allowedHost)
    const badHost = extraHosts.find((h) => hostNameOf(h) === undefined)
    if (badHost !== undefined) return yield* new UsageError({ field: "--allowed-host", message: `--allowed-host "${terminalSafe(badHost)}" is not a host name such as myhost.lan or 10.0.0.5` })
    if (!isLoopback(host.replace(/^\[|\]$/g, "")) && extraHosts.length === 0) {
      console.error(`warning: bound to ${host}: only requests whose Host header is ${host} are served; name the others with --allowed-host`)
    }
    const allowedHosts = extraHosts.length > 0 ? [...defaultAllowedHosts(host.replace(/^\[|\]$/g, "")), ...extraHosts.map((h) => hostNameOf(h)!)] : undefined
    const idleS = yield* intFlag(opts.idleTimeoutSeconds, "--idle-timeout-seconds", 30, 1, 3600)
    const started = yield* Effect.tryPromise({
      try: () => startHttp(srv, port, host, { allowedHosts, idleTimeoutMs: idleS * 1000 }),
      catch: (e) => new UsageError({ field: "--port", message: `cannot listen on ${host}:${port}: ${(e as Error).message}; pick another --port (0 = any free port)` })
    })
    console.log(`env server listening on ${started.url}  (GET ${started.url}/envs; Ctrl-C stops)`)
    yield* Effect.promise(
      () =>
        new Promise<void>((resolve) => {
          const stop = () => {
            process.off("SIGINT", stop)
            process.off("SIGTERM", stop)
            started.server.close(() => resolve())
            started.server.closeAllConnections?.()
          }
          process.on("SIGINT", stop)
          process.on("SIGTERM", stop)
        })
    )
    console.log("env server stopped")
  })

export default defineCommand({
  pattern: "env <action> [env]",
  description: "Inspect an env (env show <env> --seed N [--teacher]) or serve envs (env serve [--port P | --stdio])",
  options: [
    { flags: "--env <id>", description: "show: the env (or give it after `show`)" },
    { flags: "--seed <n>", description: "show: episode seed (default 0)" },
    { flags: "--teacher", description: "show: print the teacher's whole trace" },
    { flags: "--epsilon <e>", description: "show: teacher action noise ε (default 0)" },
    { flags: "--reasoning-noise <r>", description: "show: teacher reasoning noise (default 0)" },
    { flags: "--option <key=value>", description: "show: env option, repeatable" },
    { flags: "--port <p>", description: "serve: HTTP port (default 8765; 0 = any free port)" },
    { flags: "--host <h>", description: "serve: bind address (default 127.0.0.1)" },
    { flags: "--stdio", description: "serve: JSON lines on stdin/stdout instead of HTTP" },
    { flags: "--max-sessions <n>", description: "serve: live sessions at most; the least recently used is evicted (default 256)" },
    { flags: "--ttl-seconds <s>", description: "serve: idle sessions expire after this (default 900)" },
    { flags: "--resource <name=path|url>", description: "serve: a file or URL clients may choose by name for an env's file/URL option (dataPath, retriever.url, server.url); repeatable" },
    { flags: "--allowed-host <h>", description: "serve: a Host name clients may use besides the bound address (loopback names are always allowed on loopback); repeatable" },
    { flags: "--idle-timeout-seconds <s>", description: "serve: close a connection idle this long (default 30)" }
  ],
  examples: [
    "ragen-bench env show countdown --seed 3 --teacher",
    "ragen-bench env show metamathqa --seed 1 --teacher --option maxAttempts=2",
    "ragen-bench env serve --port 8765",
    "ragen-bench env serve --stdio",
    "ragen-bench env serve --resource metamath=data/MetaMathQA-395K.json --resource bm25=http://127.0.0.1:8000/retrieve"
  ],
  run: ([action, envId], opts) => {
    if (action === "show") return Effect.flatMap(envArg(envId, opts.env), (id) => show(id, opts))
    if (action === "serve") {
      if (envId !== undefined) return Effect.fail(new UsageError({ field: "env", message: "env serve serves every registered env; drop the env name" }))
      return serve(opts)
    }
    return Effect.fail(new UsageError({ field: "action", message: `unknown env action "${action}"; use show or serve` }))
  }
})
