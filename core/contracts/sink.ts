/**
 * Metric sink contract: where a run's metrics lines go besides metrics.jsonl, which the results
 * store always writes (resume, the leaderboard and `--from` read it; it stays the record). CSV
 * and TensorBoard event files are sinks (plugins/sinks/); a plugin may add others (a dashboard,
 * a database). Choosing sinks never changes a run's numbers, so sinks are not part of its id.
 *
 * Lifecycle (core/results/store.ts): the store makes each sink when the run writes its first
 * metrics line, with `resumeFromStep` read from metrics.jsonl at that moment; then one `write`
 * per line, in step order; `close` at the end of the run (complete, stopped or failed). A
 * process that is killed never reaches `close`, so a sink writes each line through to its file
 * (or keeps what it buffers small) and must cope with a torn last record when it reopens.
 */
import type { Schema } from "effect"

/** One metrics line: the step and named values (docs/metrics.md); null = not computed this step. */
export type MetricsRecord = Readonly<Record<string, number | null>> & { readonly step: number }

export interface SinkContext {
  /** The run folder (the sink writes its files inside it). */
  readonly runDir: string
  readonly runId: string
  /**
   * Absent: a fresh run; the sink replaces whatever files it left in runDir before.
   * Present: the run resumes after this step. Lines after it were discarded from metrics.jsonl
   * and will be written again, so the sink drops (or marks as superseded) what it holds for
   * later steps, and keeps steps ≤ resumeFromStep.
   */
  readonly resumeFromStep?: number
}

export interface MetricSink {
  /** One line, in step order; a key may appear for the first time at any step. */
  write(line: MetricsRecord): void
  /** Flush and close (end of run, stop, failure). */
  close(): void | Promise<void>
}

export interface SinkSpec<Options = any> {
  /** Local id, e.g. "csv" or "tensorboard" (namespaced "<plugin>/<id>" by the registry). */
  readonly id: string
  readonly description: string
  /** Decoded strictly; `{}` must decode (sinks are chosen by id alone). */
  readonly options: Schema.Codec<Options, any>
  make(options: Options, context: SinkContext): MetricSink
}
