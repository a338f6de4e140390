/**
 * Metric sink contract: where a run's metrics lines go besides metrics.jsonl (which the
 * results store always writes: resume and the leaderboard read it). CSV and TensorBoard
 * event files are sinks; a plugin may add others (a dashboard, a database).
 */
import type { Schema } from "effect"

/** One metrics line: the step and named values (docs/metrics.md). */
export type MetricsRecord = Readonly<Record<string, number | null>> & { readonly step: number }

export interface SinkContext {
  /** The run folder (the sink writes its files inside it). */
  readonly runDir: string
  /** The run resumes from this step: lines after it were discarded and are written again. */
  readonly resumeFromStep?: number
}

export interface MetricSink {
  write(line: MetricsRecord): void
  /** Flush and close (end of run, stop, failure). */
  close(): void | Promise<void>
}

export interface SinkSpec<Options = any> {
  /** Local id, e.g. "csv" or "tensorboard". */
  readonly id: string
  readonly description: string
  readonly options: Schema.Codec<Options, any>
  make(options: Options, context: SinkContext): MetricSink
}
