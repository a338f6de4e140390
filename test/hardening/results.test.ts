/**
 * docs/decisions.md#issue-15, result files, checkpoints and the leaderboard: damaged run folders are reported and
 * skipped, result strings cannot form Markdown links or reach the terminal as escape sequences,
 * `leaderboard verify` does not re-run configs that read files or reach URLs unless allowed,
 * `--resume` validates what it loads, and a sweep spec that is a folder is a one-line error.
 */
import { describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { Effect } from "effect"
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { openRun, scanRunDirs } from "../../core/results/store.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import { loadSpec } from "../../core/sweep/spec.ts"
import { terminalSafe } from "../../core/text.ts"
import { latestCheckpoint } from "../../core/train/checkpoint.ts"
import { MAX_CHART_POINTS, peakOf, thin } from "../../plugins/leaderboard/build.ts"
import { md, renderMarkdown } from "../../plugins/leaderboard/markdown.ts"
import { writeSite } from "../../plugins/leaderboard/site.ts"
import { lineChart } from "../../plugins/leaderboard/svg.ts"
import { externalInputs, verifyRuns } from "../../plugins/leaderboard/verify.ts"
import { FORMAT as CHECKPOINT_FORMAT, readCheckpoint } from "../../plugins/tinylm/policy.ts"
import { decodeSafetensors, encodeSafetensors, readSafetensors } from "../../plugins/tinylm/safetensors.ts"
import { runCli } from "../helpers/cli.ts"
import { tempRoot } from "./helpers.ts"
import { writeRuns } from "../leaderboard/fixtures.ts"

const { root, fresh } = tempRoot("rb-results-")

describe("the leaderboard build reports and skips bad run folders", () => {
  test("a dangling symlink and a metrics.jsonl that is a directory", async () => {
    const dir = fresh("bad-folders")
    const [good, dirMetrics] = writeRuns(dir, [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
      { env: "frozenlake", filter: "none", seed: 2, peak: 0.7 }
    ])
    symlinkSync(join(root, "does-not-exist"), join(dir, "zz-dangling"))
    rmSync(join(dirMetrics!, "metrics.jsonl"))
    mkdirSync(join(dirMetrics!, "metrics.jsonl"))
    // A FIFO in place of config.json would block a plain read forever.
    const fifoRun = join(dir, "zz-fifo-run")
    mkdirSync(fifoRun)
    const hasFifo = spawnSync("mkfifo", [join(fifoRun, "config.json")]).status === 0
    expect(scanRunDirs(dir).problems.map((p) => p.message)).toEqual([expect.stringContaining("dangling link")])
    const site = await Effect.runPromise(writeSite([dir], join(dir, "..", "bad-folders-site")))
    const lb = site.leaderboard
    expect(lb.entries.map((e) => e.runId)).toEqual([good!.split("/").pop()!])
    const messages = lb.problems.map((p) => `${p.path}: ${p.message}`).join("\n")
    expect(messages).toContain("zz-dangling")
    expect(messages).toContain("not a regular file (a directory)")
    if (hasFifo) expect(messages).toContain("not a regular file (a FIFO)")
  })

  test("a 2-million-line metrics file builds (no spread of all values); long curves are thinned", async () => {
    const dir = fresh("long")
    const [run] = writeRuns(dir, [{ env: "frozenlake", filter: "none", seed: 1, peak: 0.5 }])
    // No peak in the summary: the peak comes from the metrics lines (peakOf's loop).
    const summaryPath = join(run!, "summary.json")
    writeFileSync(summaryPath, JSON.stringify({ ...JSON.parse(readFileSync(summaryPath, "utf8")), peakValSuccess: null }))
    // Two million lines (few distinct steps keep the build's own work small; the spreads that
    // overflowed were over lines, in peakOf, and over points, in svg.ts: both checked here).
    const block = Array.from({ length: 1000 }, (_, i) => `{"step":${i},"val/success@0.5":${(i % 500) / 1000}}\n`).join("")
    writeFileSync(join(run!, "metrics.jsonl"), block.repeat(1999) + block.replace('"step":999,"val/success@0.5":0.499', '"step":999,"val/success@0.5":0.999'))
    const big = Array.from({ length: 2_000_000 }, (_, i) => [i, i % 7] as const)
    expect(lineChart({ title: "t", series: [{ name: "a", points: big.slice(0, 10) }] })).toContain("<svg")
    expect(() => lineChart({ title: "t", series: [{ name: "a", points: big }] })).not.toThrow()
    const site = await Effect.runPromise(writeSite([dir], join(dir, "..", "long-site")))
    expect(site.leaderboard.problems).toEqual([])
    expect(site.leaderboard.entries[0]!.peak).toBe(0.999)
    const lines2 = [
      { step: 0, "val/success@0.5": 0.25 },
      { step: 1, "val/success@0.5": 0.75 }
    ]
    expect(peakOf({ dir: run!, config: undefined as never, metrics: { lines: lines2 } })).toBe(0.75)
    const chart = site.leaderboard.groups[0]!.charts.find((c) => c.metric === "val/success@0.5")!
    expect(chart.series[0]!.points.length).toBe(1000)
    const thinned = thin(big, MAX_CHART_POINTS)
    expect(thinned.length).toBeLessThanOrEqual(MAX_CHART_POINTS + 1)
    expect(thinned.at(-1)).toEqual(big.at(-1)!)
  }, 180_000)
})

describe("leaderboard.md and terminal warnings", () => {
  test("Markdown links, images, backticks, HTML and autolinks from result strings are inert", () => {
    const evil = "![x](https://evil.example/p.png) [click](javascript:alert(1)) `code` <b>hi</b> http://evil.example www.evil.example *em* a|b"
    const out = md(evil)
    expect(out).not.toMatch(/(^|[^\\])!?\[[^\]]*(^|[^\\])\]\(/)
    expect(out).not.toMatch(/(^|[^\\])`/)
    expect(out).not.toContain("<b>")
    expect(out).not.toContain("http://")
    expect(out).not.toMatch(/(^|[^\\])\|/)
    expect(out).toContain("\\[click\\]")
    expect(md("a\nb\u001b[2Jc")).toBe("a b \\[2Jc") // the escape character itself is gone
  })

  test("renderMarkdown escapes run ids, errors and problems", () => {
    const text = renderMarkdown({
      format: "ragen-bench/leaderboard",
      metric: "val/success@0.5",
      verdict: { sentence: "[v](http://e.example)", separated: [] },
      family: { primary: 0, last3: 0, peak: 0, factAuc: 0, alpha: 0.05, test: "sign-flip" },
      sources: [],
      filters: ["none"],
      rows: [],
      ranking: [],
      groups: [],
      entries: [{ runId: "[x](http://e.example)", status: "failed", error: "`boom` ![i](http://e.example/i.png)" }],
      problems: [{ path: "run`s/config.json", message: "[m](http://e.example)" }]
    } as never)
    expect(text).not.toContain("](http")
    expect(text).not.toMatch(/(^|[^\\])`boom/)
    expect(text).toContain("run\\`s/config.json")
  })

  test("warnings printed by `leaderboard` carry no control or escape sequence (a hostile folder name)", () => {
    const dir = fresh("hostile")
    writeRuns(dir, [{ env: "frozenlake", filter: "none", seed: 1, peak: 0.5 }])
    const name = "run\u001b]0;pwned\u0007\u001b[2J"
    mkdirSync(join(dir, name))
    writeFileSync(join(dir, name, "config.json"), "{ not json")
    const r = runCli(["leaderboard", dir, "--out", join(root, "hostile-site")], { timeoutMs: 120_000 })
    expect(r.code).toBe(0)
    expect(r.stderr).toContain("warning:")
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
    expect(terminalSafe("a\u001b[2Jb\u0007")).toBe("a?[2Jb?")
  }, 120_000)
})

describe("leaderboard verify and external inputs", () => {
  const cfg = (o: Record<string, unknown>) => {
    const r = decodeSync(RunConfig, { env: "metamathqa", ...o })
    if (!r.ok) throw new Error(r.message)
    return r.value
  }

  test("configs that read files or reach URLs are found", () => {
    expect(externalInputs(cfg({}))).toEqual([])
    expect(externalInputs(cfg({ envOptions: { dataPath: "" } }))).toEqual([])
    expect(externalInputs(cfg({ envOptions: { dataPath: "/etc/passwd" } }))).toEqual(["envOptions.dataPath"])
    expect(externalInputs(cfg({ env: "searchqa", envOptions: { retriever: { url: "http://10.0.0.1/retrieve" } } }))).toEqual(["envOptions.retriever"])
    expect(externalInputs(cfg({ policy: "openai", policyOptions: { baseUrl: "http://169.254.169.254/v1" } }))).toEqual(["policyOptions.baseUrl"])
    expect(externalInputs(cfg({ train: { init: "ckpt/step-000100.ckpt" } }))).toEqual(["train.init"])
    expect(externalInputs(cfg({ filterOptions: { note: "../../x" } }))).toEqual(["filterOptions.note"])
  })

  test("verify refuses such a run (no re-run, no mark) unless --allow-external", async () => {
    const dir = fresh("verify")
    const c = cfg({ envOptions: { dataPath: "/etc/passwd" }, steps: 1 })
    const run = openRun(dir, c)
    run.appendMetrics({ step: 0 })
    run.writeSummary({ status: "complete", stepsDone: 1, wallSeconds: 1, finalValSuccess: null, peakValSuccess: null, final: {} } as never)
    let calls = 0
    const train = async () => {
      calls++
      throw new Error("re-run attempted")
    }
    const refused = await Effect.runPromise(verifyRuns(dir, 5, 1, train as never))
    expect(refused).toEqual([expect.objectContaining({ ok: false, refused: true, detail: expect.stringContaining("envOptions.dataPath") })])
    expect(calls).toBe(0)
    expect(existsSync(join(dir, "verify.json"))).toBe(false)
    const allowed = await Effect.runPromise(verifyRuns(dir, 5, 1, train as never, [], { allowExternal: true }))
    expect(calls).toBe(1)
    expect(allowed[0]!.refused).toBeUndefined()
  })
})

describe("--resume validates what it loads", () => {
  const ckDir = (name: string, files: Record<string, string>): string => {
    const d = fresh(`ck-${name}`)
    for (const [f, text] of Object.entries(files)) writeFileSync(join(d, f), text)
    return d
  }
  const state = JSON.stringify({ step: 3, wallSeconds: 1.5, peakValSuccess: 0.5, finalValSuccess: null, miEma: {} })
  const latest = (o: Record<string, unknown> = {}) => JSON.stringify({ step: 3, policy: "step-000003.ckpt", state: "step-000003.state.json", ...o })
  const oneLine = (f: () => unknown): string => {
    try {
      f()
    } catch (e) {
      const err = e as { _tag?: string; message: string }
      expect(err._tag).toBe("FileFormatError")
      expect(err.message).not.toContain("\n")
      return err.message
    }
    throw new Error("no error")
  }

  test("a good checkpoint loads; none is undefined", () => {
    const d = ckDir("good", { "latest.json": latest(), "step-000003.ckpt": "x", "step-000003.state.json": state })
    expect(latestCheckpoint(d)?.state.step).toBe(3)
    expect(latestCheckpoint(fresh("ck-none"))).toBeUndefined()
  })

  test("corrupt latest.json or state.json, wrong types, a step mismatch: one clear line each", () => {
    const files = { "step-000003.ckpt": "x", "step-000003.state.json": state }
    expect(oneLine(() => latestCheckpoint(ckDir("torn", { ...files, "latest.json": '{"step": 3, "pol' })))).toContain("not valid JSON")
    expect(oneLine(() => latestCheckpoint(ckDir("types", { ...files, "latest.json": latest({ step: "3" }) })))).toContain("step")
    expect(oneLine(() => latestCheckpoint(ckDir("state-torn", { ...files, "latest.json": latest(), "step-000003.state.json": "{" })))).toContain("not valid JSON")
    const wrong = JSON.stringify({ step: 3, wallSeconds: "1.5", peakValSuccess: "high", finalValSuccess: null, miEma: {} })
    expect(oneLine(() => latestCheckpoint(ckDir("state-types", { ...files, "latest.json": latest(), "step-000003.state.json": wrong })))).toContain("wallSeconds")
    expect(oneLine(() => latestCheckpoint(ckDir("mismatch", { ...files, "latest.json": latest({ step: 4 }) })))).toContain("step 3")
    expect(oneLine(() => latestCheckpoint(ckDir("missing", { "latest.json": latest(), "step-000003.state.json": state })))).toContain("missing")
  })

  test("latest.json cannot point outside the checkpoints folder", () => {
    const outside = fresh("ck-outside-target")
    writeFileSync(join(outside, "step-000003.state.json"), state)
    for (const policy of ["../ck-outside-target/step-000003.ckpt", "/etc/passwd", "sub/step-000003.ckpt", "latest.json"]) {
      const d = ckDir(`out-${policy.length}`, { "latest.json": latest({ policy }), "step-000003.ckpt": "x", "step-000003.state.json": state })
      expect(oneLine(() => latestCheckpoint(d))).toContain("inside")
    }
  })

  const tensorFile = (header: Record<string, unknown>, data: Float32Array): Uint8Array => {
    const json = new TextEncoder().encode(JSON.stringify(header))
    const out = new Uint8Array(8 + json.length + data.byteLength)
    new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true)
    out.set(json, 8)
    out.set(new Uint8Array(data.buffer), 8 + json.length)
    return out
  }

  test("safetensors: data_offsets non-negative, inside the data section, not overlapping; shapes agree", () => {
    const data = new Float32Array([1, 2, 3, 4])
    const t = (offsets: unknown, shape: unknown = [2]) => ({ dtype: "F32", shape, data_offsets: offsets })
    expect(decodeSafetensors(tensorFile({ a: t([0, 8]), b: t([8, 16]) }, data)).tensors.get("b")!.data).toEqual(new Float32Array([3, 4]))
    expect(() => decodeSafetensors(tensorFile({ a: t([-8, 0]) }, data))).toThrow(/not inside the data section/)
    expect(() => decodeSafetensors(tensorFile({ a: t([8, 24]) }, data))).toThrow(/not inside the data section/)
    expect(() => decodeSafetensors(tensorFile({ a: t([0, 8]), b: t([4, 12]) }, data))).toThrow(/overlap/)
    expect(() => decodeSafetensors(tensorFile({ a: t([0, 8], [3]) }, data))).toThrow(/needs 12 bytes/)
    expect(() => decodeSafetensors(tensorFile({ a: t([0.5, 8]) }, data))).toThrow(/two integers/)
    expect(() => decodeSafetensors(tensorFile({ a: t([0, 6], [1]) }, data))).toThrow()
  })

  test("NaN weights are reported as such", () => {
    const p = join(fresh("nan"), "w.safetensors")
    writeFileSync(p, encodeSafetensors([{ name: "wte", shape: [3], data: new Float32Array([0.5, Number.NaN, 1]) }], {}))
    expect(() => readSafetensors(p)).toThrow(/tensor wte holds NaN at index 1/)
  })
})

test("a sweep spec path that is a folder is a one-line usage error", async () => {
  const r = await Effect.runPromise(Effect.result(loadSpec(fresh("spec-folder.json"))))
  expect(r._tag).toBe("Failure")
  if (r._tag === "Failure") {
    expect(r.failure._tag).toBe("UsageError")
    expect(r.failure.message).toContain("is a folder")
  }
})

test("--steps -1 and --steps=-1 are one-line usage errors (exit 2), before anything runs", () => {
  const out = fresh("steps-out")
  for (const args of [["--steps", "-1"], ["--steps=-1"], ["--P", "0"]]) {
    const r = runCli(["train", "--env", "frozenlake", "--out", out, ...args], { timeoutMs: 120_000 })
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^error: /)])
  }
  expect(runCli(["train", "--env", "frozenlake", "--out", out, "--steps=-1"]).stderr).toContain("--steps")
  // With a space too: the value reaches the flag's own check.
  expect(runCli(["train", "--env", "frozenlake", "--out", out, "--steps", "-1"]).stderr.trim()).toBe('error: --steps must be an integer ≥ 0, got "-1"')
}, 180_000)

test("checkpoint metadata that is not JSON is a one-line usage error, not a stack trace", () => {
  const p = join(fresh("meta"), "w.safetensors")
  writeFileSync(p, encodeSafetensors([{ name: "wte", shape: [1], data: new Float32Array([1]) }], { format: CHECKPOINT_FORMAT, config: '{"d": 6', tokenizer: "{}" }))
  let err: { _tag?: string; message: string } | undefined
  try {
    readCheckpoint(p)
  } catch (e) {
    err = e as { _tag?: string; message: string }
  }
  expect(err?._tag).toBe("UsageError")
  expect(err?.message).toContain('metadata entry "config" is not valid JSON')
})

test("a results bundle's own ragen-bench.config.ts is not loaded by `leaderboard` run inside it", () => {
  const bundle = fresh("bundle")
  writeRuns(join(bundle, "results"), [{ env: "frozenlake", filter: "none", seed: 1, peak: 0.5 }])
  const marker = join(bundle, "pwned")
  writeFileSync(join(bundle, "ragen-bench.config.ts"), `import { writeFileSync } from "node:fs"\nwriteFileSync(${JSON.stringify(marker)}, "ran")\nexport default { plugins: [] }\n`)
  const r = runCli(["leaderboard", "results", "--out", "site"], { cwd: bundle, timeoutMs: 120_000 })
  expect(r.code).toBe(0)
  expect(r.stderr).toContain("is not loaded")
  expect(existsSync(marker)).toBe(false)
}, 120_000)
