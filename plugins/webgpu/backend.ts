/**
 * Where the engine runs: in this process on a device from adapter.ts (navigator.gpu or Dawn), or
 * in a Deno child process (child.ts). Both answer the same three calls; failures are GpuFailure.
 */
import type { ModelConfig } from "../tinylm/index.ts"
import type { Acquired } from "./adapter.ts"
import { type EngineScores, type EngineStats, ForwardEngine, Pipelines } from "./engine.ts"
import type { ScoreRow } from "./layout.ts"
import { FUSE_DEFAULT, type Fuse, TILE_DEFAULT, type Tile } from "./plan.ts"

export interface GpuBackend {
  /** How the device was reached: "navigator.gpu", "dawn", "deno child (navigator.gpu)". */
  readonly via: string
  /** The adapter's own name (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"). */
  readonly adapter: string
  /** Upload the flat parameters unless this version is already there; true when uploaded. */
  setWeights(config: ModelConfig, params: Float32Array, version: string): Promise<boolean>
  score(rows: ReadonlyArray<ScoreRow>, opts?: { readonly tokenLogprobs?: boolean }): Promise<EngineScores>
  /** Test hook: destroy the device, as a driver reset would. */
  loseDevice(): Promise<void>
  close(): void
}

export interface BackendOptions {
  readonly maxPositions: number
  /** plan.ts's dispatch list (default epilogues). */
  readonly fuse?: Fuse
  /** plan.ts's matmul tile edge (default 64). */
  readonly tile?: Tile
}

export class InProcessBackend implements GpuBackend {
  readonly via: string
  readonly adapter: string
  private engine: ForwardEngine | undefined
  private pipes: Pipelines | undefined
  private key = ""

  constructor(
    private readonly got: Acquired,
    private readonly options: BackendOptions
  ) {
    this.via = got.via
    this.adapter = got.adapter
  }

  async setWeights(config: ModelConfig, params: Float32Array, version: string): Promise<boolean> {
    const key = JSON.stringify(config)
    if (!this.engine || key !== this.key) {
      this.engine?.destroy()
      this.pipes ??= await Pipelines.create(this.got.device)
      this.engine = await ForwardEngine.create(
        this.got.device,
        config,
        { maxPositions: this.options.maxPositions, fuse: this.options.fuse ?? FUSE_DEFAULT, tile: this.options.tile ?? TILE_DEFAULT },
        this.pipes
      )
      this.key = key
    }
    return this.engine.setWeights(params, version)
  }

  score(rows: ReadonlyArray<ScoreRow>, opts: { readonly tokenLogprobs?: boolean } = {}): Promise<EngineScores> {
    if (!this.engine) throw new Error("webgpu: score before setWeights")
    return this.engine.score(rows, opts)
  }

  async loseDevice(): Promise<void> {
    this.got.device.destroy()
    await this.got.device.lost
  }

  /** Per-kernel GPU time from now on (benchmarks; ForwardEngine.profile), undefined without timestamp-query. */
  profile(): ReturnType<ForwardEngine["profile"]> {
    return this.engine?.profile()
  }

  /** What the engine moved so far (benchmarks). */
  get stats(): EngineStats | undefined {
    return this.engine?.stats
  }

  close(): void {
    this.engine?.destroy()
    this.engine = undefined
  }
}
