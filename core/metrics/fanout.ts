/**
 * Fan a run's metrics lines out to its sinks (the results store calls this). metrics.jsonl itself
 * is not a sink: the store always writes it, first, and it decides where a resumed run restarts.
 */
import { existsSync, readFileSync } from "node:fs"
import type { MetricSink, MetricsRecord, SinkSpec } from "../contracts/sink.ts"

/** A sink resolved from the registry with its options decoded: what `openRun` takes. */
export interface SinkBinding {
  /** The full registry id ("sinks/csv"). */
  readonly id: string
  readonly spec: SinkSpec
  readonly options: unknown
}

/** The last step logged in a metrics.jsonl (undefined when there is none); a torn line is skipped. */
export const lastLoggedStep = (jsonlPath: string): number | undefined => {
  if (!existsSync(jsonlPath)) return undefined
  const lines = readFileSync(jsonlPath, "utf8").split("\n")
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!.trim()
    if (l === "") continue
    try {
      const step = (JSON.parse(l) as { step?: unknown }).step
      if (typeof step === "number") return step
    } catch {
      // A torn last line from a killed writer: the one before it is the last whole line.
    }
  }
  return undefined
}

export interface SinkFanout {
  /** Make the sinks now if not yet made; call it before appending the first line to metrics.jsonl. */
  open(): void
  write(line: MetricsRecord): void
  close(): Promise<void>
}

/**
 * Fan lines out to the sinks. They are made at the first line, when metrics.jsonl already holds
 * exactly what the run keeps (a fresh run removed it, a resumed one truncated it), so its last
 * step is where the run resumes; the trainer need not tell the sinks.
 */
export const sinkFanout = (bindings: ReadonlyArray<SinkBinding>, ctx: { runDir: string; runId: string; jsonlPath: string }): SinkFanout => {
  let sinks: MetricSink[] | undefined
  let closed = false
  const open = (): MetricSink[] => {
    if (sinks) return sinks
    const resumeFromStep = lastLoggedStep(ctx.jsonlPath)
    const context = { runDir: ctx.runDir, runId: ctx.runId, ...(resumeFromStep !== undefined ? { resumeFromStep } : {}) }
    sinks = bindings.map((b) => b.spec.make(b.options, context))
    return sinks
  }
  return {
    open: () => {
      if (bindings.length > 0 && !closed) open()
    },
    write: (line) => {
      if (bindings.length === 0) return
      if (closed) throw new Error("metric sinks: write after close")
      if (typeof line.step !== "number") throw new Error(`metric sinks: a metrics line without a step: ${JSON.stringify(line)}`)
      for (const s of open()) s.write(line)
    },
    close: async () => {
      if (closed) return
      closed = true
      // Every sink gets its close even when one fails; the first failure is reported.
      const results = await Promise.allSettled((sinks ?? []).map(async (s) => s.close()))
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected")
      if (failed) throw failed.reason
    }
  }
}
