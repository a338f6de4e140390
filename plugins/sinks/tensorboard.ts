/**
 * TensorBoard sink: metrics lines as scalar summaries in a TensorBoard event file, so that
 * `tensorboard --logdir results/` shows every run (named by its run id) with its keys grouped by
 * prefix (`train/`, `mi/first_turn/`, `val/` …).
 *
 * File: `<runDir>/events.out.tfevents.<unix seconds>.<host>.<pid>.<n>` (TensorFlow's naming; any
 * name containing "tfevents" is read). Records are TFRecord-framed (./tfrecord.ts), each an
 * `Event` protobuf (tensorflow/core/util/event.proto):
 *   Event      { double wall_time = 1; int64 step = 2; oneof what { string file_version = 3;
 *                Summary summary = 5; SessionLog session_log = 7; … } }
 *   Summary    { repeated Value value = 1 }            (tensorflow/core/framework/summary.proto)
 *   Value      { string tag = 1; float simple_value = 2; … }
 *   SessionLog { SessionStatus status = 1 }  with START = 1
 * The first record is the file_version event "brain.Event:2" (what TensorFlow's EventsWriter
 * writes first); then one Event per metrics line, its values as simple_value (float32; null
 * values and keys under an `exclude` prefix are left out).
 *
 * A fresh run (no resumeFromStep) first removes the event files of earlier attempts in runDir.
 * Resume: each opening writes a new event file (the TensorBoard convention: a writer never
 * appends to an old file). A resumed run's file starts with a SessionLog START event at step
 * resumeFromStep + 1; TensorBoard's event accumulator then drops the older files' points at that
 * step and later (its purge of orphaned data), so the discarded steps do not show twice. This is
 * what PyTorch's SummaryWriter(purge_step=…) writes.
 */
import { Effect, Schema } from "effect"
import { appendFileSync, mkdirSync, readdirSync, rmSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import type { MetricSink, MetricsRecord, SinkContext, SinkSpec } from "../../core/host.ts"
import { frameRecord } from "./tfrecord.ts"

export const FILE_VERSION = "brain.Event:2"
const SESSION_START = 1

// ---- protobuf wire format (https://protobuf.dev/programming-guides/encoding/)
const VARINT = 0,
  I64 = 1,
  LEN = 2,
  I32 = 5

class ProtoWriter {
  private parts: number[] = []
  private bytes(b: ArrayLike<number>): void {
    for (let i = 0; i < b.length; i++) this.parts.push(b[i]!)
  }
  private varint(v: bigint): void {
    // int64 fields encode negative values as their two's complement, 10 bytes.
    let x = BigInt.asUintN(64, v)
    while (x >= 0x80n) {
      this.parts.push(Number(x & 0x7fn) | 0x80)
      x >>= 7n
    }
    this.parts.push(Number(x))
  }
  private key(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire))
  }
  double(field: number, v: number): this {
    const b = new Uint8Array(8)
    new DataView(b.buffer).setFloat64(0, v, true)
    this.key(field, I64)
    this.bytes(b)
    return this
  }
  float(field: number, v: number): this {
    const b = new Uint8Array(4)
    new DataView(b.buffer).setFloat32(0, v, true)
    this.key(field, I32)
    this.bytes(b)
    return this
  }
  int64(field: number, v: number): this {
    this.key(field, VARINT)
    this.varint(BigInt(Math.trunc(v)))
    return this
  }
  enum(field: number, v: number): this {
    return this.int64(field, v)
  }
  bytesField(field: number, b: Uint8Array): this {
    this.key(field, LEN)
    this.varint(BigInt(b.length))
    this.bytes(b)
    return this
  }
  string(field: number, s: string): this {
    return this.bytesField(field, new TextEncoder().encode(s))
  }
  message(field: number, m: ProtoWriter): this {
    return this.bytesField(field, m.finish())
  }
  finish(): Uint8Array {
    return Uint8Array.from(this.parts)
  }
}

const event = (wallTime: number, step: number) => new ProtoWriter().double(1, wallTime).int64(2, step)

export const fileVersionEvent = (wallTime: number): Uint8Array => event(wallTime, 0).string(3, FILE_VERSION).finish()

export const sessionStartEvent = (wallTime: number, step: number): Uint8Array => event(wallTime, step).message(7, new ProtoWriter().enum(1, SESSION_START)).finish()

/** One metrics line as an Event with a Summary of simple values (step itself is the Event's step). */
export const scalarsEvent = (wallTime: number, line: MetricsRecord, exclude: ReadonlyArray<string> = []): Uint8Array => {
  const summary = new ProtoWriter()
  for (const [tag, v] of Object.entries(line)) {
    if (tag === "step" || v === null || v === undefined || exclude.some((p) => tag.startsWith(p))) continue
    summary.message(1, new ProtoWriter().string(1, tag).float(2, v))
  }
  return event(wallTime, line.step).message(5, summary).finish()
}

let fileCounter = 0

export const TensorBoardSinkOptions = Schema.Struct({
  /** Keys starting with any of these prefixes are left out (e.g. ["perf/"]). */
  exclude: Schema.Array(Schema.String).pipe(Schema.withDecodingDefault(Effect.succeed([])))
})
export type TensorBoardSinkOptions = typeof TensorBoardSinkOptions.Type

export const makeTensorBoardSink = (o: TensorBoardSinkOptions, ctx: SinkContext, now: () => number = () => Date.now() / 1000): MetricSink & { readonly path: string } => {
  mkdirSync(ctx.runDir, { recursive: true })
  // A fresh start (--fresh) replaces the run: the event files of earlier attempts go.
  if (ctx.resumeFromStep === undefined) {
    for (const f of readdirSync(ctx.runDir)) if (f.startsWith("events.out.tfevents.")) rmSync(join(ctx.runDir, f), { force: true })
  }
  const host = hostname().replace(/[^A-Za-z0-9._-]+/g, "_") || "host"
  const path = join(ctx.runDir, `events.out.tfevents.${Math.floor(now())}.${host}.${process.pid}.${fileCounter++}`)
  // One write call per record: a killed process leaves at most one torn record at the end,
  // which TensorBoard's reader stops at (the next opening starts a new file).
  const put = (data: Uint8Array) => appendFileSync(path, frameRecord(data))
  put(fileVersionEvent(now()))
  if (ctx.resumeFromStep !== undefined) put(sessionStartEvent(now(), ctx.resumeFromStep + 1))
  return {
    path,
    write: (line) => put(scalarsEvent(now(), line, o.exclude)),
    close: () => {}
  }
}

export const tensorBoardSinkSpec: SinkSpec<TensorBoardSinkOptions> = {
  id: "tensorboard",
  description: "TensorBoard event file per run (scalars; tensorboard --logdir <out>); a resumed run writes a new file that supersedes the discarded steps",
  options: TensorBoardSinkOptions,
  make: (o, ctx) => makeTensorBoardSink(o, ctx)
}
