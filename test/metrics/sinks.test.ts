/**
 * Metric sinks: the CSV and TensorBoard writers read back by independent readers, their resume
 * behaviour, the results store's fan-out, and choosing sinks through the Registry.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { MetricSink, MetricsRecord, SinkContext, SinkSpec } from "../../core/contracts/sink.ts"
import { lastLoggedStep } from "../../core/metrics/fanout.ts"
import { resolveSinks } from "../../core/metrics/sinks.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { openRun } from "../../core/results/store.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import { CSV_FILE, csvSinkSpec, formatCell, makeCsvSink, parseCsvLine } from "../../plugins/sinks/csv.ts"
import sinksPlugin from "../../plugins/sinks/plugin.ts"
import { FILE_VERSION, makeTensorBoardSink, tensorBoardSinkSpec } from "../../plugins/sinks/tensorboard.ts"
import { crc32c, maskCrc } from "../../plugins/sinks/tfrecord.ts"
import { crc32cBitwise, decodeEvent, readRecords } from "./tfevents-reader.ts"

const tmp = () => mkdtempSync(join(tmpdir(), "ragen-sinks-"))
const decoded = <T>(spec: SinkSpec<T>, raw: unknown = {}): T => {
  const r = decodeSync(spec.options, raw)
  if (!r.ok) throw new Error(r.message)
  return r.value
}
const csvDefaults = decoded(csvSinkSpec)
const tbDefaults = decoded(tensorBoardSinkSpec)
const ctx = (runDir: string, resumeFromStep?: number): SinkContext => ({ runDir, runId: "run", ...(resumeFromStep !== undefined ? { resumeFromStep } : {}) })

/** A plain reader of the CSV: header and rows as objects (empty cell = absent). */
const readCsv = (path: string): { header: string[]; rows: Array<Record<string, number>> } => {
  const lines = readFileSync(path, "utf8").split("\n")
  expect(lines.pop()).toBe("") // ends with a newline
  const header = parseCsvLine(lines[0]!)
  const rows = lines.slice(1).map((l) => {
    const cells = parseCsvLine(l)
    expect(cells.length).toBe(header.length) // every row as wide as the header
    const row: Record<string, number> = {}
    cells.forEach((c, i) => {
      if (c !== "") row[header[i]!] = Number(c)
    })
    return row
  })
  return { header, rows }
}

const lines: MetricsRecord[] = [
  { step: 0, "val/success@0.5": 0.25, "sft/steps": 3 },
  { step: 1, "train/success": 0.5, "mi/first_turn/mi_est": 0.125, "collapse/warning": 0 },
  { step: 2, "train/success": 0.75, "losses/policy": -1.5e-7, "collapse/warning": null },
  { step: 3, "train/success": 1, "val/success@0.5": 0.5, 'filter/odd,name/"q"': 2 }
]

describe("CSV sink", () => {
  test("wide rows with a header that grows as keys appear; values round-trip; awkward keys quoted", () => {
    const dir = tmp()
    const sink = makeCsvSink(csvDefaults, ctx(dir))
    for (const l of lines) sink.write(l)
    sink.close()
    const { header, rows } = readCsv(join(dir, CSV_FILE))
    expect(header).toEqual(["step", "val/success@0.5", "sft/steps", "train/success", "mi/first_turn/mi_est", "collapse/warning", "losses/policy", 'filter/odd,name/"q"'])
    const expected = lines.map((l) => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== null)))
    expect(rows).toEqual(expected as Array<Record<string, number>>)
    expect(formatCell(Number.NaN)).toBe("nan")
    expect(formatCell(-Infinity)).toBe("-inf")
    expect(parseCsvLine('a,"b,c",,"d""e",')).toEqual(["a", "b,c", "", 'd"e', ""])
  })

  test("resume keeps steps ≤ resumeFromStep, drops a torn row, and never duplicates a step; a fresh start replaces the file", () => {
    const dir = tmp()
    const first = makeCsvSink(csvDefaults, ctx(dir))
    for (const l of lines) first.write(l)
    appendFileSync(join(dir, CSV_FILE), "4,0.") // a torn row from a killed writer
    const resumed = makeCsvSink(csvDefaults, ctx(dir, 1))
    for (const l of lines.slice(2)) resumed.write({ ...l, "perf/new_key": l.step })
    const { header, rows } = readCsv(join(dir, CSV_FILE))
    expect(rows.map((r) => r.step)).toEqual([0, 1, 2, 3])
    expect(header.at(-1)).toBe("perf/new_key")
    expect(rows[3]!["perf/new_key"]).toBe(3)
    expect(rows[1]!["mi/first_turn/mi_est"]).toBe(0.125)
    const fresh = makeCsvSink(csvDefaults, ctx(dir))
    fresh.write({ step: 0, a: 1 })
    expect(readCsv(join(dir, CSV_FILE))).toEqual({ header: ["step", "a"], rows: [{ step: 0, a: 1 }] })
  })
})

describe("TensorBoard sink", () => {
  test("CRC32C matches the check value and an independent bitwise CRC; the mask is TensorFlow's", () => {
    const check = new TextEncoder().encode("123456789")
    expect(crc32c(check)).toBe(0xe3069283) // RFC 3720 / iSCSI check value
    const random = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7919 + 13) & 0xff)
    expect(crc32c(random)).toBe(crc32cBitwise(random))
    expect(maskCrc(0)).toBe(0xa282ead8)
  })

  test("an event file read back by an independent reader: file_version first, one event per line with float32 scalars", () => {
    const dir = tmp()
    let t = 1_700_000_000.25
    const sink = makeTensorBoardSink(tbDefaults, ctx(dir), () => (t += 1))
    for (const l of lines) sink.write(l)
    sink.close()
    const files = readdirSync(dir).filter((f) => f.includes("tfevents"))
    expect(files).toHaveLength(1)
    const events = readRecords(new Uint8Array(readFileSync(join(dir, files[0]!)))).map(decodeEvent)
    expect(events[0]).toMatchObject({ fileVersion: FILE_VERSION, step: 0 })
    expect(events).toHaveLength(1 + lines.length)
    events.slice(1).forEach((ev, i) => {
      const l = lines[i]!
      expect(ev.step).toBe(l.step)
      expect(ev.wallTime).toBeGreaterThan(1_700_000_000)
      const want = Object.entries(l)
        .filter(([k, v]) => k !== "step" && v !== null)
        .map(([tag, v]) => ({ tag, value: Math.fround(v as number) }))
      expect(ev.values).toEqual(want)
    })
    // Wall times increase record by record.
    const times = events.map((e) => e.wallTime!)
    expect(times).toEqual([...times].sort((a, b) => a - b))
  })

  test("resume writes a new file that starts with SessionLog START at resumeFromStep + 1; a fresh start removes old files", () => {
    const dir = tmp()
    const a = makeTensorBoardSink(tbDefaults, ctx(dir))
    for (const l of lines) a.write(l)
    const b = makeTensorBoardSink(tbDefaults, ctx(dir, 1))
    b.write(lines[2]!)
    expect(b.path).not.toBe(a.path)
    const events = readRecords(new Uint8Array(readFileSync(b.path))).map(decodeEvent)
    expect(events[0]!.fileVersion).toBe(FILE_VERSION)
    expect(events[1]).toMatchObject({ step: 2, sessionStatus: 1 })
    expect(events[2]!.step).toBe(2)
    expect(readdirSync(dir).filter((f) => f.includes("tfevents"))).toHaveLength(2)
    const c = makeTensorBoardSink(tbDefaults, ctx(dir))
    expect(readdirSync(dir).filter((f) => f.includes("tfevents"))).toEqual([c.path.slice(dir.length + 1)])
  })

  test("the independent reader rejects a corrupted record (so the CRC checks above are real)", () => {
    const dir = tmp()
    const s = makeTensorBoardSink(tbDefaults, ctx(dir))
    s.write(lines[1]!)
    const bytes = new Uint8Array(readFileSync(s.path))
    bytes[bytes.length - 6]! ^= 0x01
    writeFileSync(s.path, bytes)
    expect(() => readRecords(new Uint8Array(readFileSync(s.path)))).toThrow("bad data CRC")
  })
})

const runConfig = (seed: number): RunConfig => {
  const r = decodeSync(RunConfig, { env: "bandit", policy: "fake", algo: "grpo", seed })
  if (!r.ok) throw new Error(r.message)
  return r.value
}

describe("results store fan-out", () => {
  test("lines go to metrics.jsonl first, then to each sink; sinks open at the first line with the resume step read from metrics.jsonl; close closes them", async () => {
    const out = tmp()
    const log: string[] = []
    const recorder: SinkSpec = {
      id: "recorder",
      description: "test",
      options: csvSinkSpec.options,
      make: (_o, c): MetricSink => {
        log.push(`make resume=${c.resumeFromStep ?? "none"} jsonlStep=${lastLoggedStep(join(c.runDir, "metrics.jsonl")) ?? "none"}`)
        return { write: (l) => log.push(`write ${l.step}`), close: () => void log.push("close") }
      }
    }
    const sinks = [
      { id: "test/recorder", spec: recorder, options: {} },
      { id: "sinks/csv", spec: csvSinkSpec, options: csvDefaults },
      { id: "sinks/tensorboard", spec: tensorBoardSinkSpec, options: tbDefaults }
    ]
    const run = openRun(out, runConfig(1), { sinks })
    expect(log).toEqual([]) // nothing is made before the first line
    for (const l of lines) run.appendMetrics(l)
    await run.close()
    expect(log).toEqual(["make resume=none jsonlStep=none", "write 0", "write 1", "write 2", "write 3", "close"])
    expect(readCsv(join(run.dir, CSV_FILE)).rows.map((r) => r.step)).toEqual([0, 1, 2, 3])
    expect(() => run.appendMetrics({ step: 4 })).toThrow("write after close")

    // A resumed run: the trainer truncates metrics.jsonl to its checkpoint step (here 1) and writes on.
    const jsonl = join(run.dir, "metrics.jsonl")
    writeFileSync(jsonl, readFileSync(jsonl, "utf8").split("\n").slice(0, 2).join("\n") + "\n")
    log.length = 0
    const again = openRun(out, runConfig(1), { sinks })
    for (const l of lines.slice(2)) again.appendMetrics(l)
    await again.close()
    expect(log[0]).toBe("make resume=1 jsonlStep=1")
    expect(readCsv(join(run.dir, CSV_FILE)).rows.map((r) => r.step)).toEqual([0, 1, 2, 3])
    const tb = readdirSync(run.dir).filter((f) => f.includes("tfevents"))
    expect(tb).toHaveLength(2)
  })

  test("without sinks the store writes metrics.jsonl only", async () => {
    const out = tmp()
    const run = openRun(out, runConfig(2))
    run.appendMetrics({ step: 0, a: 1 })
    await run.close()
    expect(readdirSync(run.dir).sort()).toEqual(["config.json", "metrics.jsonl"])
    expect(existsSync(join(run.dir, CSV_FILE))).toBe(false)
  })
})

describe("choosing sinks through the Registry", () => {
  const resolve = (choices: Parameters<typeof resolveSinks>[0]) => Effect.runPromise(resolveSinks(choices).pipe(Effect.provide(registryLayerFrom([sinksPlugin]))))

  test("by local id, by full id, with options; a repeated sink is kept once", async () => {
    const b = await resolve(["csv", { id: "sinks/tensorboard", options: { exclude: ["perf/"] } }, "sinks/csv"])
    expect(b.map((x) => x.id)).toEqual(["sinks/csv", "sinks/tensorboard"])
    expect(b[0]!.options).toEqual({ file: "metrics.csv", exclude: [] })
    expect(b[1]!.options).toEqual({ exclude: ["perf/"] })
  })

  test("exclude leaves keys out of both sinks", () => {
    const dir = tmp()
    const csv = makeCsvSink(decoded(csvSinkSpec, { exclude: ["perf/", "mi/"], file: "slim.csv" }), ctx(dir))
    const tb = makeTensorBoardSink(decoded(tensorBoardSinkSpec, { exclude: ["perf/"] }), ctx(dir))
    const line = { step: 1, "train/success": 1, "perf/step_seconds": 0.5, "mi/first_turn/mi_est": 0.1 }
    csv.write(line)
    tb.write(line)
    expect(readCsv(join(dir, "slim.csv")).header).toEqual(["step", "train/success"])
    const ev = readRecords(new Uint8Array(readFileSync(tb.path))).map(decodeEvent)[1]!
    expect(ev.values!.map((v) => v.tag)).toEqual(["train/success", "mi/first_turn/mi_est"])
  })

  test("an unknown id and an unknown option are user errors naming what is known", async () => {
    await expect(resolve(["parquet"])).rejects.toMatchObject({ _tag: "UnknownIdError", message: expect.stringContaining("sinks/csv") })
    await expect(resolve([{ id: "csv", options: { exlcude: ["perf/"] } }])).rejects.toMatchObject({ _tag: "UsageError", message: expect.stringContaining("did you mean exclude?") })
    await expect(resolve([{ id: "csv", options: { file: "../x.csv" } }])).rejects.toMatchObject({ _tag: "UsageError", message: expect.stringContaining("file") })
  })
})

describe("a real training run with sinks, crashed and resumed", () => {
  test("metrics.csv holds exactly metrics.jsonl's lines (no step twice); TensorBoard gets one file per start, the second opening with SessionLog START", async () => {
    const { runTraining } = await import("../../core/train/run.ts")
    const { builtinPlugins } = await import("../../builtins.ts")
    const { cfg, testPlugin } = await import("../train/fixtures.ts")
    const out = tmp()
    const plugins = [...builtinPlugins, testPlugin]
    const sinks = await Effect.runPromise(resolveSinks(["csv", "tensorboard"]).pipe(Effect.provide(registryLayerFrom(plugins))))
    const config = cfg({ steps: 6 }, { checkpointEvery: 2, valSeeds: 4, evalEvery: 3, diagEvery: 0 })
    const base = { outDir: out, plugins, sinks, onLog: () => {} }
    // A crash after step 3 (a throw from the progress callback); the last checkpoint is step 2, so
    // the resume truncates metrics.jsonl to step 2 and writes steps 3.. again.
    const crash = runTraining(config, {
      ...base,
      onProgress: (p) => {
        if (p.step === 3) throw new Error("simulated crash")
      }
    })
    await expect(crash).rejects.toThrow("simulated crash")
    const dirs = readdirSync(out).filter((d) => !d.startsWith("."))
    expect(dirs).toHaveLength(1)
    const runDir = join(out, dirs[0]!)
    expect(readCsv(join(runDir, CSV_FILE)).rows.map((r) => r.step)).toEqual([0, 1, 2, 3])
    const done = await runTraining(config, { ...base, resume: true })
    expect(done.status).toBe("complete")
    const jsonl = readFileSync(join(runDir, "metrics.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, number | null>)
    const { rows } = readCsv(join(runDir, CSV_FILE))
    expect(rows.map((r) => r.step)).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(rows).toEqual(jsonl.map((l) => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== null))) as Array<Record<string, number>>)
    const files = readdirSync(runDir)
      .filter((f) => f.includes("tfevents"))
      .sort()
    expect(files).toHaveLength(2)
    const opened = files.map((f) => readRecords(new Uint8Array(readFileSync(join(runDir, f)))).map(decodeEvent))
    const restart = opened.find((evs) => evs[1]?.sessionStatus === 1)
    expect(restart).toBeDefined()
    const resumedAt = restart![1]!.step
    expect(resumedAt).toBe(3)
    expect(restart!.slice(2).map((e) => e.step)).toEqual([3, 4, 5, 6])
  }, 60000)
})
