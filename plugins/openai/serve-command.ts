/**
 * `ragen-bench serve [--env E] [--checkpoint FILE | --untrained] [--port P]`: the embedded tinylm
 * policy behind an OpenAI-compatible API subset (serve.ts, serve-http.ts) on 127.0.0.1, until
 * Ctrl-C. Without --checkpoint it serves --env's shipped warm start (the warm-start registry;
 * --checkpoint takes a file or a warm-start id: warm-start.ts),
 * named in /v1/models by id and hash; an untrained model only with --untrained. /v1/models also
 * says the context length (max_model_len) and the prompt style the model's trainer used (the
 * warm start's recipe, else the trainer's defaults), which the openai policy's
 * `--instructions auto` follows.
 */
import { Console, Effect } from "effect"
import { basename } from "node:path"
import { decodeInput, defaultAllowedHosts, defineCommand, hostNameOf, listFlag, numberFlagOr, Registry, UsageError } from "../../core/host.ts"
import { type WarmStart, warmStartRef } from "../../core/contracts/index.ts"
import { makeTinyLM, TinyLMOptions, type TinyLMPolicy } from "../tinylm/plugin.ts"
import { userPromise } from "./effect.ts"
import { DEFAULT_MAX_BODY, TinyLMServer } from "./serve.ts"
import { DEFAULT_MAX_QUEUE, startServe } from "./serve-http.ts"
import { defaultWarmStart, promptStyleOf, warmStartOfCheckpoint } from "./warm-start.ts"

export default defineCommand({
  pattern: "serve",
  description: "Serve the embedded tinylm policy over an OpenAI-compatible API (completions with logprobs and echo, chat, models)",
  options: [
    { flags: "--env <id>", description: "Env whose shipped warm start is served (default frozenlake); with --untrained, whose vocabulary" },
    { flags: "--checkpoint <file|id>", description: "A tinylm checkpoint file (its own tokenizer), or a warm start's id (ragen-bench list warmstarts), instead of the env's warm start" },
    { flags: "--untrained", description: "Serve an untrained model on --env's vocabulary (tests, not evaluations)" },
    { flags: "--port <n>", description: "Port (0: any free one)", default: 8000 },
    { flags: "--host <addr>", description: "Address to bind (default 127.0.0.1; anything else exposes the model to the network)" },
    { flags: "--allowed-host <h>", description: "A Host name clients may use besides the bound address; repeatable" },
    { flags: "--model <name>", description: "Model name in /v1/models (default tinylm)" },
    { flags: "--seed <n>", description: "Seed of requests that send none (default 0)" },
    { flags: "--max-body <bytes>", description: `Largest request body (default ${DEFAULT_MAX_BODY})` },
    { flags: "--max-queue <n>", description: `Requests accepted at once, beyond which a 503 with Retry-After (default ${DEFAULT_MAX_QUEUE})` }
  ],
  examples: ["ragen-bench serve --env sokoban", "ragen-bench serve --checkpoint runs/sft/frozenlake-v1-tiny-s0.safetensors --port 8000"],
  run: (_args, o) =>
    Effect.gen(function* () {
      const port = yield* numberFlagOr(o.port, "--port", 8000, { integer: true, min: 0, max: 65535 })
      const seed = yield* numberFlagOr(o.seed, "--seed", 0, { integer: true, min: 0 })
      const maxBody = yield* numberFlagOr(o.maxBody, "--max-body", DEFAULT_MAX_BODY, { integer: true, min: 1 })
      const maxQueue = yield* numberFlagOr(o.maxQueue, "--max-queue", DEFAULT_MAX_QUEUE, { integer: true, min: 1 })
      const host = typeof o.host === "string" ? o.host : "127.0.0.1"
      const extraHosts = listFlag(o.allowedHost)
      const badHost = extraHosts.find((h) => hostNameOf(h) === undefined)
      if (badHost !== undefined) return yield* new UsageError({ field: "--allowed-host", message: `--allowed-host "${badHost.slice(0, 60)}" is not a host name such as myhost.lan or 10.0.0.5` })
      const allowedHosts = extraHosts.length > 0 ? [...defaultAllowedHosts(host.replace(/^\[|\]$/g, "")), ...extraHosts.map((h) => hostNameOf(h)!)] : undefined
      const checkpoint = typeof o.checkpoint === "string" ? o.checkpoint : undefined
      if (o.checkpoint !== undefined && checkpoint === undefined) return yield* new UsageError({ field: "--checkpoint", message: "--checkpoint needs a file or a warm start's id" })
      if (checkpoint && o.untrained) return yield* new UsageError({ field: "--untrained", message: "--checkpoint and --untrained are two models; keep one of them" })
      if (o.env !== undefined && typeof o.env !== "string") return yield* new UsageError({ field: "--env", message: "--env takes one env id, e.g. --env sokoban" })
      const registry = yield* Registry
      const envAsked = typeof o.env === "string" ? yield* registry.resolve("envs", o.env) : undefined
      // --checkpoint takes a file or a warm-start id (`ragen-bench list warmstarts`); a warm start names its env
      let warm: WarmStart | undefined = checkpoint ? yield* warmStartOfCheckpoint(registry, checkpoint, envAsked?.fullId) : undefined
      const envE = envAsked ?? (yield* registry.resolve("envs", warm ? warm.env : "frozenlake"))
      const envOptions = yield* decodeInput(envE.value.options, {}, `envOptions (of ${envE.fullId})`)
      if (!checkpoint && !o.untrained) {
        warm = (yield* defaultWarmStart(registry, envE, envOptions))?.warm
        if (!warm)
          return yield* new UsageError({ field: "--env", message: `no shipped warm start for ${envE.fullId}; serve a checkpoint with --checkpoint FILE, or an untrained model with --untrained` })
      }
      const file = warm ? undefined : checkpoint
      const init = file ?? warm?.path
      const options = yield* decodeInput(TinyLMOptions, init ? { init } : {}, "--checkpoint")
      const policy: TinyLMPolicy = yield* userPromise(() => makeTinyLM(options, { vocabulary: envE.value.vocabulary(envOptions), seed }))
      const model = typeof o.model === "string" ? o.model : "tinylm"
      const root = warm ? warmStartRef(warm) : file ? basename(file).replace(/\.safetensors$/, "") : `untrained (${envE.fullId}, seed ${seed})`
      const promptStyle = yield* Effect.try({ try: () => promptStyleOf(warm), catch: (e) => e as UsageError })
      const srv = new TinyLMServer(policy, { model, root, promptStyle, seed, maxBodyBytes: maxBody })
      const started = yield* userPromise(() =>
        startServe(srv, port, host, { maxBodyBytes: maxBody, maxQueue, ...(allowedHosts ? { allowedHosts } : {}) }).catch((e: Error) => {
          throw new UsageError({ field: "--port", message: `cannot listen on ${host}:${port}: ${e.message}; pick another --port` })
        })
      )
      yield* Console.log(`serving ${model} = ${root} (${policy.parameterCount} parameters, context ${policy.settings.config.ctx} tokens) at ${started.url}  (Ctrl-C stops)`)
      yield* Effect.promise(() => new Promise<void>((resolve) => process.once("SIGINT", () => started.server.close(() => resolve()))))
    })
})
