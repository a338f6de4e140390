/**
 * Shared tinybench plumbing for the in-process benchmarks (STYLE.md, tinybench v6): run a Bench,
 * read each task's figures only when its state is "completed" (an errored task fails the script),
 * print tinybench's table, and print one JSON line per task with the runtime and the tinybench
 * version. Not a benchmark itself (run.ts lists files without a leading "_").
 */
import { readFileSync } from "node:fs"
import { Bench, type Task } from "tinybench"

export const tinybenchVersion: string = (() => {
  try {
    return String(JSON.parse(readFileSync(new URL("../node_modules/tinybench/package.json", import.meta.url), "utf8")).version)
  } catch {
    return "unknown"
  }
})()

const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } }
export const runtime = g.Bun ? `bun ${g.Bun.version}` : g.Deno ? `deno ${g.Deno.version.deno}` : `node ${process.version}`

/** `--name value` as a number, else the default. */
export const numberFlag = (name: string, dflt: number, argv: ReadonlyArray<string> = process.argv.slice(2)): number => {
  const i = argv.indexOf(`--${name}`)
  const v = i >= 0 ? Number(argv[i + 1]) : Number.NaN
  return Number.isFinite(v) && v >= 0 ? v : dflt
}

export interface TaskFigures {
  readonly task: string
  /** Median latency of one task call (ms). */
  readonly medianMs: number
  readonly meanMs: number
  /** Relative margin of error of the mean (%). */
  readonly rme: number
  readonly samples: number
}

/** A completed task's figures; an errored or unfinished task throws (its figures would mislead). */
export const figures = (t: Task): TaskFigures => {
  const r = t.result
  if (r.state !== "completed") throw new Error(`benchmark task "${t.name}" ${r.state}${r.state === "errored" ? `: ${r.error.message}` : ""}`)
  return { task: t.name, medianMs: r.latency.p50, meanMs: r.latency.mean, rme: r.latency.rme, samples: r.latency.samplesCount }
}

/** Run the bench, print its table, return the tasks' figures in order. */
export const runBench = async (bench: Bench, title: string): Promise<TaskFigures[]> => {
  await bench.run()
  console.log(`${title} (${runtime}, tinybench ${tinybenchVersion}, ${bench.time} ms per task)`)
  console.table(bench.table())
  return bench.tasks.map(figures)
}

/** One JSON line per figure row, with the runtime and tinybench version. */
export const jsonLine = (bench: string, row: Record<string, unknown>): void => console.log(JSON.stringify({ bench, ...row, runtime, tinybench: tinybenchVersion }))

export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/**
 * A side-by-side comparison (STYLE.md): `rounds` benches of the same tasks, in alternating order,
 * so drift in machine load hits every task alike; per task, the median over rounds of each
 * round's median latency (ms).
 */
export const alternate = async (
  tasks: ReadonlyArray<{ readonly name: string; readonly fn: () => unknown }>,
  o: { readonly rounds: number; readonly time: number; readonly iterations: number }
): Promise<Record<string, number>> => {
  const perRound: Record<string, number[]> = Object.fromEntries(tasks.map((t) => [t.name, []]))
  for (let r = 0; r < o.rounds; r++) {
    const bench = new Bench({ time: o.time, iterations: o.iterations, warmupIterations: r === 0 ? 1 : 0, warmup: r === 0 })
    for (const t of r % 2 === 0 ? tasks : [...tasks].reverse()) bench.add(t.name, t.fn)
    await bench.run()
    for (const t of bench.tasks) perRound[t.name]!.push(figures(t).medianMs)
  }
  return Object.fromEntries(Object.entries(perRound).map(([k, v]) => [k, median(v)]))
}
