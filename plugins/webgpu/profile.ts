/**
 * Per-kernel GPU time of a batch (benchmarks: where the time goes), with the `timestamp-query`
 * feature: each dispatch in a compute pass of its own with timestamps at its start and end, the
 * chunk's timestamps resolved and read back after its submission. Slower than the plain path
 * (a pass per dispatch, a readback per chunk): for profiling runs only, never for the figures.
 */
import type { Pipelines } from "./engine.ts"
import { type Op, type Recorder, SLOT } from "./plan.ts"

const QUERY_RESOLVE = 0x200
const COPY_SRC = 0x4
const COPY_DST = 0x8
const MAP_READ = 0x1

/** A dispatch's name in the profile: the kernel, and for a matmul its fusions. */
export const opName = (op: Op): string => {
  if (op.k !== "matmul" && op.k !== "matmul32") return op.k
  const p = op.params
  return `${op.k}${p.ln ? "+ln" : ""}${p.epi === 1 ? "+gelu" : p.epi === 2 ? "+residual" : ""} ${p.k}→${p.n}`
}

export class Profiler {
  /** Nanoseconds and dispatch count per opName, summed over everything profiled. */
  readonly byKernel = new Map<string, { ns: number; count: number }>()
  private readonly qs: GPUQuerySet
  private readonly resolve: GPUBuffer
  private readonly read: GPUBuffer

  constructor(
    device: GPUDevice,
    private readonly maxOps: number
  ) {
    this.qs = device.createQuerySet({ type: "timestamp", count: 2 * maxOps })
    this.resolve = device.createBuffer({ size: 16 * maxOps, usage: QUERY_RESOLVE | COPY_SRC })
    this.read = device.createBuffer({ size: 16 * maxOps, usage: COPY_DST | MAP_READ })
  }

  static available = (device: GPUDevice): boolean => device.features.has("timestamp-query")

  /** Encode the recorded dispatches, one timed pass each. */
  encode(rec: Recorder, enc: GPUCommandEncoder, pipes: Pipelines, group: GPUBindGroup): void {
    if (rec.used > this.maxOps) throw new Error(`webgpu profile: ${rec.used} dispatches for ${this.maxOps} query slots`)
    rec.ops.forEach((op, i) => {
      const pass = enc.beginComputePass({ timestampWrites: { querySet: this.qs, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } })
      pass.setPipeline(pipes.byName[op.k])
      pass.setBindGroup(0, group, [i * SLOT])
      if (op.x > 0 && op.y > 0) pass.dispatchWorkgroups(op.x, op.y)
      pass.end()
    })
    enc.resolveQuerySet(this.qs, 0, 2 * rec.used, this.resolve, 0)
    enc.copyBufferToBuffer(this.resolve, 0, this.read, 0, 16 * rec.used)
  }

  /** After the chunk's submission: add each dispatch's time to its kernel. */
  async collect(ops: ReadonlyArray<Op>): Promise<void> {
    await this.read.mapAsync(MAP_READ)
    const t = new BigUint64Array(this.read.getMappedRange().slice(0, 16 * ops.length))
    this.read.unmap()
    ops.forEach((op, i) => {
      const name = opName(op)
      const e = this.byKernel.get(name) ?? { ns: 0, count: 0 }
      e.ns += Number(t[2 * i + 1]! - t[2 * i]!)
      e.count++
      this.byKernel.set(name, e)
    })
  }

  destroy(): void {
    this.qs.destroy()
    this.resolve.destroy()
    this.read.destroy()
  }
}
