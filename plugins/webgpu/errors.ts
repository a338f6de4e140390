/**
 * Typed failures of the WebGPU scorer. The scorer catches them, warns once and continues on
 * the CPU scorer (never a crash, never a number from a half-run forward).
 */
import { Schema } from "effect"
import type { GpuFailure } from "./engine.ts"

/** The device went away (driver reset, destroy(), the Deno worker exited) or a readback failed. */
export class WebGpuDeviceLost extends Schema.TaggedError<WebGpuDeviceLost>()("WebGpuDeviceLost", { backend: Schema.String, message: Schema.String }) {}

/** An allocation or a submission ran out of GPU memory (the out-of-memory error scope). */
export class WebGpuOutOfMemory extends Schema.TaggedError<WebGpuOutOfMemory>()("WebGpuOutOfMemory", { backend: Schema.String, message: Schema.String }) {}

/** A validation error or a limit the config does not fit (a bug or an unusual adapter). */
export class WebGpuRejected extends Schema.TaggedError<WebGpuRejected>()("WebGpuRejected", { backend: Schema.String, message: Schema.String }) {}

export type WebGpuError = WebGpuDeviceLost | WebGpuOutOfMemory | WebGpuRejected

export const fromFailure = (backend: string, f: Pick<GpuFailure, "kind" | "message">): WebGpuError =>
  f.kind === "device-lost"
    ? new WebGpuDeviceLost({ backend, message: f.message })
    : f.kind === "out-of-memory"
      ? new WebGpuOutOfMemory({ backend, message: f.message })
      : new WebGpuRejected({ backend, message: f.message })
