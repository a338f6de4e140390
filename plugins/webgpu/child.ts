/**
 * The Deno child backend: Bun has no navigator.gpu, and Dawn (the `webgpu` package) refuses
 * some drivers (Mesa lavapipe 22.3: "Vulkan shaderUniform*ArrayDynamicIndexing required"), so
 * the engine runs in `deno run worker.ts` and we talk to it in frames over its stdin/stdout.
 * One request at a time. The child does not keep this process alive while idle (unref), and a
 * child that exits turns every pending and later call into a device-lost GpuFailure.
 * Deno's WebGPU on Mesa needs XDG_RUNTIME_DIR: we set a private one when it is unset.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { projectRoot } from "../../core/host.ts"
import type { ModelConfig } from "../tinylm/index.ts"
import type { BackendOptions, GpuBackend } from "./backend.ts"
import { type EngineScores, GpuFailure, type GpuFailureKind } from "./engine.ts"
import { encodeFrame, type Frame, FrameReader } from "./frames.ts"
import { packRows, type ScoreRow } from "./layout.ts"
import { FUSE_DEFAULT, type Fuse, TILE_DEFAULT, type Tile } from "./plan.ts"

export const defaultDenoPath = (): string => process.env.RAGEN_DENO ?? join(projectRoot, "node_modules", ".bin", "deno")
export const workerPath = (): string => join(projectRoot, "plugins", "webgpu", "worker.ts")

/** The environment the worker needs (XDG_RUNTIME_DIR for Mesa's Vulkan loader). */
export const workerEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env }
  if (!env.XDG_RUNTIME_DIR) env.XDG_RUNTIME_DIR = mkdtempSync(join(tmpdir(), "ragen-xdg-"))
  return env
}

const KINDS = new Set<GpuFailureKind>(["device-lost", "out-of-memory", "validation", "limits"])

export class DenoChildBackend implements GpuBackend {
  readonly via = "deno child (navigator.gpu)"
  adapter = ""
  private readonly child: ChildProcess
  private readonly reader = new FrameReader()
  private waiting: Array<{ resolve: (f: Frame) => void; reject: (e: Error) => void }> = []
  private exited: string | undefined
  private stderr = ""
  private queue: Promise<unknown> = Promise.resolve()

  private constructor(deno: string) {
    this.child = spawn(deno, ["run", "--quiet", "--no-prompt", "--no-lock", workerPath()], { stdio: ["pipe", "pipe", "pipe"], env: workerEnv() })
    this.child.stdout!.on("data", (c: Uint8Array) => {
      for (const f of this.reader.push(c)) this.waiting.shift()?.resolve(f)
    })
    this.child.stderr!.on("data", (c: Uint8Array) => {
      this.stderr = (this.stderr + new TextDecoder().decode(c)).slice(-2000)
    })
    const gone = (why: string) => {
      this.exited ??= why
      const err = new GpuFailure("device-lost", `webgpu: the Deno worker ${why}${this.stderr ? `: ${this.stderr.trim().split("\n").slice(-3).join(" | ")}` : ""}`)
      for (const w of this.waiting.splice(0)) w.reject(err)
    }
    this.child.on("exit", (code, signal) => gone(`exited (${signal ?? `code ${code}`})`))
    this.child.on("error", (e) => gone(`could not start: ${e.message}`))
    this.child.stdin!.on("error", () => {}) // a dead child's EPIPE is reported by "exit"
    this.idle()
  }

  /** Start the worker; its first frame says whether Deno found an adapter. */
  static async start(options: BackendOptions & { readonly deno?: string }): Promise<DenoChildBackend | { reason: string }> {
    const b = new DenoChildBackend(options.deno ?? defaultDenoPath())
    b.maxPositions = options.maxPositions
    b.fuse = options.fuse ?? FUSE_DEFAULT
    b.tile = options.tile ?? TILE_DEFAULT
    try {
      const f = await b.next()
      if (f.header.op === "ready") {
        b.adapter = String(f.header.adapter)
        return b
      }
      b.close()
      return { reason: `deno: ${String(f.header.reason ?? "no adapter")}` }
    } catch (e) {
      b.close()
      return { reason: `deno child: ${(e as Error).message}` }
    } finally {
      b.idle()
    }
  }

  private maxPositions = 16384
  private fuse: Fuse = FUSE_DEFAULT
  private tile: Tile = TILE_DEFAULT

  // Keep the event loop alive only while a reply is awaited.
  private busy(): void {
    this.child.ref()
    ;(this.child.stdout as { ref?: () => void }).ref?.()
  }
  private idle(): void {
    this.child.unref()
    ;(this.child.stdout as { unref?: () => void }).unref?.()
    ;(this.child.stderr as { unref?: () => void }).unref?.()
    ;(this.child.stdin as { unref?: () => void }).unref?.()
  }

  private next(): Promise<Frame> {
    if (this.exited) return Promise.reject(new GpuFailure("device-lost", `webgpu: the Deno worker ${this.exited}`))
    this.busy()
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }))
  }

  /** One request, one answer; requests are serialised. */
  private request(header: Record<string, unknown>, payload?: ArrayBufferView): Promise<Frame> {
    const run = async () => {
      const answer = this.next()
      this.child.stdin!.write(encodeFrame(header, payload))
      try {
        const f = await answer
        if (f.header.op === "error") {
          const kind = String(f.header.kind) as GpuFailureKind
          throw new GpuFailure(KINDS.has(kind) ? kind : "validation", String(f.header.message))
        }
        return f
      } finally {
        this.idle()
      }
    }
    const p = this.queue.then(run, run)
    this.queue = p.catch(() => {})
    return p
  }

  async setWeights(config: ModelConfig, params: Float32Array, version: string): Promise<boolean> {
    const f = await this.request({ op: "weights", config, version, maxPositions: this.maxPositions, fuse: this.fuse, tile: this.tile }, params)
    return f.header.uploaded === true
  }

  async score(rows: ReadonlyArray<ScoreRow>, opts: { readonly tokenLogprobs?: boolean } = {}): Promise<EngineScores> {
    const f = await this.request({ op: "score", tokenLogprobs: opts.tokenLogprobs === true }, packRows(rows))
    const R = rows.length
    const x = new Float32Array(f.payload)
    if (x.length < 2 * R) throw new GpuFailure("device-lost", `webgpu: the Deno worker answered ${x.length} floats for ${R} rows`)
    const out: EngineScores = { sum: x.slice(0, R), mean: x.slice(R, 2 * R) }
    if (!opts.tokenLogprobs) return out
    let o = 2 * R
    const part = () => rows.map((r) => x.slice(o, (o += r.scored)))
    const tokens = part(),
      entropy = part(),
      values = part()
    if (o > x.length) throw new GpuFailure("device-lost", `webgpu: the Deno worker answered ${x.length} floats, ${o} expected`)
    return { ...out, tokens, entropy, values }
  }

  async loseDevice(): Promise<void> {
    await this.request({ op: "lose" })
  }

  close(): void {
    if (!this.exited) this.child.kill()
  }
}
