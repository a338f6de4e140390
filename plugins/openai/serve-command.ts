/**
 * `ragen-bench serve [--checkpoint FILE] [--env E] [--port P]`: the embedded tinylm policy
 * behind an OpenAI-compatible API subset (serve.ts) on 127.0.0.1, until Ctrl-C.
 */
import { Console, Effect } from "effect"
import { basename } from "node:path"
import { defineCommand } from "../../core/contracts/command.ts"
import { numberFlagOr } from "../../core/cli/flags.ts"
import { UsageError } from "../../core/errors.ts"
import { Registry } from "../../core/registry.ts"
import { decodeInput } from "../../core/schema/decode.ts"
import { makeTinyLM, TinyLMOptions, type TinyLMPolicy } from "../tinylm/index.ts"
import { userPromise } from "./effect.ts"
import { DEFAULT_MAX_BODY, startServe, TinyLMServer } from "./serve.ts"

export default defineCommand({
  pattern: "serve",
  description: "Serve the embedded tinylm policy over an OpenAI-compatible API (completions with logprobs and echo, chat, models)",
  options: [
    { flags: "--checkpoint <file>", description: "A tinylm checkpoint (its own tokenizer); without one, an untrained model on --env's vocabulary" },
    { flags: "--env <id>", description: "Env whose vocabulary an untrained model uses (default frozenlake)" },
    { flags: "--port <n>", description: "Port (0: any free one)", default: 8000 },
    { flags: "--host <addr>", description: "Address to bind (default 127.0.0.1; anything else exposes the model to the network)" },
    { flags: "--model <name>", description: "Model name in /v1/models (default: the checkpoint's file name, else tinylm)" },
    { flags: "--seed <n>", description: "Seed of requests that send none (default 0)" },
    { flags: "--max-body <bytes>", description: `Largest request body (default ${DEFAULT_MAX_BODY})` }
  ],
  examples: ["ragen-bench serve --checkpoint runs/sft/frozenlake-v1-tiny-s0.safetensors --port 8000"],
  run: (_args, o) =>
    Effect.gen(function* () {
      const port = yield* numberFlagOr(o.port, "--port", 8000, { integer: true, min: 0, max: 65535 })
      const seed = yield* numberFlagOr(o.seed, "--seed", 0, { integer: true, min: 0 })
      const maxBody = yield* numberFlagOr(o.maxBody, "--max-body", DEFAULT_MAX_BODY, { integer: true, min: 1 })
      const host = typeof o.host === "string" ? o.host : "127.0.0.1"
      const checkpoint = typeof o.checkpoint === "string" ? o.checkpoint : undefined
      if (o.checkpoint !== undefined && checkpoint === undefined) return yield* new UsageError({ field: "--checkpoint", message: "--checkpoint needs a file" })
      const registry = yield* Registry
      const envE = yield* registry.resolve("envs", typeof o.env === "string" ? o.env : "frozenlake")
      const envOptions = yield* decodeInput(envE.value.options, {}, `envOptions (of ${envE.fullId})`)
      const options = yield* decodeInput(TinyLMOptions, checkpoint ? { init: checkpoint } : {}, "--checkpoint")
      const policy: TinyLMPolicy = yield* userPromise(() => makeTinyLM(options, { vocabulary: envE.value.vocabulary(envOptions), seed }))
      const model = typeof o.model === "string" ? o.model : checkpoint ? basename(checkpoint).replace(/\.safetensors$/, "") : "tinylm"
      const srv = new TinyLMServer(policy, { model, seed, maxBodyBytes: maxBody })
      const started = yield* userPromise(() =>
        startServe(srv, port, host).catch((e: Error) => {
          throw new UsageError({ field: "--port", message: `cannot listen on ${host}:${port}: ${e.message}; pick another --port` })
        })
      )
      yield* Console.log(`serving ${model} (${policy.parameterCount} parameters) at ${started.url}  (Ctrl-C stops)`)
      yield* Effect.promise(() => new Promise<void>((resolve) => process.once("SIGINT", () => started.server.close(() => resolve()))))
    })
})
