/**
 * The gzip cap counts per `sweep collect`, not per result (issue 40): three planted results, each
 * under the per-result cap, once inflated to 379 MB on disk from 3 MB in Redis. One collect's
 * results share one allowance (plugins/bullmq/job.ts MAX_UNPACKED_COLLECT_BYTES): once it is
 * spent, further results are refused with a message naming the cap, before anything is written.
 * (The coordinator's collect passes one allowance to every result: coordinator.ts.)
 */
import { afterAll, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { RESULTS_FORMAT } from "../../core/contracts/results.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import { runIdOf } from "../../core/results/store.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { writeRunFiles } from "../../plugins/bullmq/files.ts"
import { collectAllowance, MAX_UNPACKED_COLLECT_BYTES, MAX_UNPACKED_RESULT_BYTES, packFile } from "../../plugins/bullmq/job.ts"

const out = mkdtempSync(join(tmpdir(), "rb-collect-cap-"))
afterAll(() => rmSync(out, { recursive: true, force: true }))

const MiB = 1024 * 1024

const result = (seed: number, metricsBytes: number) => {
  const c = decodeSync(RunConfig, { env: "frozenlake", steps: 1, seed })
  if (!c.ok) throw new Error(c.message)
  const { runId, hash } = runIdOf(c.value)
  const files = [
    packFile("config.json", JSON.stringify({ format: RESULTS_FORMAT, runId, hash, config: c.value })),
    // A gzip bomb: a few kB packed, metricsBytes inflated.
    { name: "metrics.jsonl" as const, gz: gzipSync(Buffer.alloc(metricsBytes, 0x20)).toString("base64") }
  ]
  return { runId, config: c.value, files }
}

describe("sweep collect's cap on inflated bytes", () => {
  test("is one allowance for the whole collect: results under the per-result cap are refused once it is spent", () => {
    expect(MAX_UNPACKED_COLLECT_BYTES).toBeLessThan(3 * MAX_UNPACKED_RESULT_BYTES)
    const allowance = collectAllowance(3 * MiB)
    const rs = [result(1, 1.4 * MiB), result(2, 1.4 * MiB), result(3, 1.4 * MiB)]
    writeRunFiles(out, rs[0]!.runId, rs[0]!.config, rs[0]!.files, allowance)
    writeRunFiles(out, rs[1]!.runId, rs[1]!.config, rs[1]!.files, allowance)
    let message = ""
    try {
      writeRunFiles(out, rs[2]!.runId, rs[2]!.config, rs[2]!.files, allowance)
    } catch (e) {
      message = (e as Error).message
    }
    expect(message).toContain("the cap on one sweep collect")
    expect(message).toContain("run sweep collect again")
    expect(existsSync(join(out, rs[1]!.runId, "metrics.jsonl"))).toBe(true)
    expect(existsSync(join(out, rs[2]!.runId))).toBe(false)
    expect(allowance.left).toBeLessThan(0.3 * MiB)
  })

  test("without an allowance (a sweep's own results as they arrive) only the per-result caps apply", () => {
    const r = result(4, 1.4 * MiB)
    writeRunFiles(out, r.runId, r.config, r.files)
    expect(existsSync(join(out, r.runId, "metrics.jsonl"))).toBe(true)
  })
})
