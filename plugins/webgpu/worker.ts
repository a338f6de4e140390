/**
 * The Deno WebGPU worker (run by child.ts as `deno run worker.ts`): the engine on Deno's
 * navigator.gpu, driven by frames on stdin, answering on stdout (frames.ts). Used when the
 * host runtime (Bun) has no WebGPU of its own and Dawn finds no adapter.
 * Requests: weights {config, version, maxPositions, fuse, tile} + f32 params; score {tokenLogprobs} + packed
 * rows (layout.ts); lose {} (tests: destroys the device). Answers: ready {adapter} or
 * unavailable {reason} once, then ok / scores (+ f32 [sum R, mean R], then with tokenLogprobs each row's log-probs, entropies,
 * values) / error {kind, message}.
 */
import type { ModelConfig } from "../tinylm/index.ts"
import { requestDevice } from "./adapter.ts"
import { ForwardEngine, GpuFailure, Pipelines } from "./engine.ts"
import { encodeFrame, FrameReader } from "./frames.ts"
import { unpackRows } from "./layout.ts"
import { FUSE_DEFAULT, type Fuse, TILE_DEFAULT } from "./plan.ts"

declare const Deno: { stdin: { readable: ReadableStream<Uint8Array> }; stdout: { writable: WritableStream<Uint8Array> } }

const writer = Deno.stdout.writable.getWriter()
const send = (header: Record<string, unknown>, payload?: ArrayBufferView) => writer.write(encodeFrame(header, payload))

const gpu = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu
const got = gpu ? await requestDevice(gpu, "navigator.gpu") : { reason: "deno: no navigator.gpu" }
if ("reason" in got) {
  await send({ op: "unavailable", reason: got.reason })
  await writer.close()
} else {
  const device = got.device
  await send({ op: "ready", adapter: got.adapter })
  const pipes = await Pipelines.create(device).catch((e) => e as Error)
  let engine: ForwardEngine | undefined
  let engineKey = ""
  const reader = new FrameReader()
  for await (const chunk of Deno.stdin.readable) {
    for (const f of reader.push(chunk)) {
      const h = f.header
      try {
        if (pipes instanceof Error) throw pipes
        if (h.op === "weights") {
          const config = h.config as ModelConfig
          const key = JSON.stringify([config, h.maxPositions, h.fuse, h.tile])
          if (!engine || key !== engineKey) {
            engine?.destroy()
            engine = await ForwardEngine.create(
              device,
              config,
              { maxPositions: h.maxPositions as number, fuse: (["none", "epilogues", "all"].includes(h.fuse as string) ? h.fuse : FUSE_DEFAULT) as Fuse, tile: h.tile === 32 ? 32 : TILE_DEFAULT },
              pipes
            )
            engineKey = key
          }
          const uploaded = engine.setWeights(new Float32Array(f.payload), String(h.version))
          await send({ op: "ok", uploaded, cap: engine.cap })
        } else if (h.op === "score") {
          if (!engine) throw new Error("score before weights")
          const rows = unpackRows(new Int32Array(f.payload))
          const r = await engine.score(rows, { tokenLogprobs: h.tokenLogprobs === true })
          const perToken = [...(r.tokens ?? []), ...(r.entropy ?? []), ...(r.values ?? [])]
          const out = new Float32Array(2 * rows.length + perToken.reduce((s, t) => s + t.length, 0))
          out.set(r.sum, 0)
          out.set(r.mean, rows.length)
          let o = 2 * rows.length
          for (const t of perToken) out.set(t, o), (o += t.length)
          await send({ op: "scores", rows: rows.length }, out)
        } else if (h.op === "lose") {
          device.destroy()
          await send({ op: "ok" })
        } else throw new Error(`unknown op ${String(h.op)}`)
      } catch (e) {
        const kind = e instanceof GpuFailure ? e.kind : "internal"
        await send({ op: "error", kind, message: (e as Error).message })
      }
    }
  }
}
