/**
 * A sweep worker process: runs one training run at a time as the runner asks
 * (plugins/sweep/protocol.ts over stdio). Started by plugins/sweep/runner.ts with the current
 * runtime (`process.execPath`), so it works on Bun and Deno.
 *
 * Ctrl-C reaches the whole process group; the worker ignores SIGINT and lets the runner
 * decide (it sends "stop"). When stdin closes — the runner is gone, even by SIGKILL — the
 * worker aborts and exits at once; the run is resumed by the next sweep.
 */
import { Effect } from "effect"
import { createInterface } from "node:readline"
import { decodeSync, loadBuiltinPlugins, loadTrainer, loadUserPlugins, registryLayerFrom, resolveSinks, type SinkBinding, SinkChoices, SUCCESS_METRIC, type TrainFn } from "../../core/host.ts"
import { writeFailedSummary } from "./failed.ts"
import { CONFIG_ENV, type FromWorker, PLUGINS_ENV, SINKS_ENV, ToWorker } from "./protocol.ts"
import type { PluginInput } from "../../core/contracts/index.ts"

const send = (msg: FromWorker): void => {
  process.stdout.write(JSON.stringify(msg) + "\n")
}

const main = async (): Promise<void> => {
  process.on("SIGINT", () => {})
  let train: TrainFn
  let plugins: PluginInput[] = []
  let sinks: SinkBinding[] = []
  try {
    train = await loadTrainer()
    const paths = JSON.parse(process.env[PLUGINS_ENV] ?? "[]") as string[]
    plugins = [...(await loadBuiltinPlugins()), ...(await Effect.runPromise(loadUserPlugins(paths, process.env[CONFIG_ENV] || undefined)))]
    const choices = decodeSync(SinkChoices, JSON.parse(process.env[SINKS_ENV] ?? "[]"))
    if (!choices.ok) throw new Error(`${SINKS_ENV}: ${choices.message}`)
    sinks = await Effect.runPromise(resolveSinks(choices.value, "--sink").pipe(Effect.provide(registryLayerFrom(plugins))))
  } catch (e) {
    send({ type: "fatal", error: `cannot load the trainer or the plugins: ${(e as Error)?.message ?? e}` })
    process.exit(1)
  }
  let current: AbortController | undefined
  const runOne = async (msg: Extract<ToWorker, { type: "run" }>): Promise<void> => {
    const ac = new AbortController()
    current = ac
    let success: number | null = null
    let lastSent = 0
    try {
      const summary = await train(msg.config, {
        outDir: msg.outDir,
        resume: msg.resume,
        signal: ac.signal,
        plugins,
        sinks,
        onProgress: (p) => {
          const v = p.metrics[SUCCESS_METRIC]
          if (typeof v === "number") success = v
          const now = Date.now()
          // Throttled: the display needs a few updates a second, not one per step.
          if (now - lastSent >= 200 || p.step === p.steps) {
            lastSent = now
            send({ type: "progress", runId: msg.runId, step: p.step, steps: p.steps, success })
          }
        }
      })
      send({ type: "done", runId: msg.runId, summary })
    } catch (e) {
      const error = String((e as Error)?.message ?? e)
      try {
        writeFailedSummary(msg.outDir, msg.config, error)
      } catch {
        // The runner records it instead.
      }
      send({ type: "failed", runId: msg.runId, error })
    } finally {
      current = undefined
    }
  }
  const rl = createInterface({ input: process.stdin })
  rl.on("line", (line) => {
    if (line.trim() === "") return
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      return
    }
    const r = decodeSync(ToWorker, json)
    if (!r.ok) {
      send({ type: "fatal", error: `bad message from the runner: ${r.message}` })
      return
    }
    if (r.value.type === "stop") current?.abort()
    else void runOne(r.value).then(() => send({ type: "ready" }))
  })
  rl.on("close", () => {
    current?.abort()
    process.exit(0)
  })
  send({ type: "ready" })
}

if (import.meta.main) void main()
