/**
 * The kernel pool's second thread changes speed, not numbers: training, scoring and sampling give
 * bit-identical parameters and log-probs under RAGEN_THREADS=1 and 2 (each in its own process,
 * since the thread count is chosen once per process).
 */
import { describe, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"

const fixture = new URL("./fixtures/train-hash.ts", import.meta.url).pathname
const run = (threads: string, kernels = "") =>
  JSON.parse(execFileSync(process.execPath, [fixture], { env: { ...process.env, RAGEN_THREADS: threads, RAGEN_KERNELS: kernels }, encoding: "utf8" }).trim()) as {
    threads: number
    jobs: number
    hash: number
    tokens: number
  }

describe("kernel threads", () => {
  // "native" falls back to wasm (with a line on stderr) where the native library does not load
  test.each(["native", "wasm"])(
    "RAGEN_THREADS=1 and 2 train and sample bit-identically (%s kernels)",
    (kernels) => {
      const one = run("1", kernels),
        two = run("2", kernels)
      expect(one.threads).toBe(1)
      // Bun can unref a Worker, so the pool runs (CI's machine has ≥ 2 cores; the count does not matter for it)
      expect(two.threads).toBe(2)
      expect(one.jobs).toBe(0)
      expect(two.jobs).toBeGreaterThan(50)
      expect(one.tokens).toBeGreaterThan(0)
      expect(two.hash).toBe(one.hash)
      expect(two.tokens).toBe(one.tokens)
    },
    60000
  )

  test("a bad RAGEN_THREADS is a usage error naming the variable", () => {
    let out = "",
      failed = false
    try {
      execFileSync(process.execPath, [fixture], { env: { ...process.env, RAGEN_THREADS: "8" }, encoding: "utf8", stdio: "pipe" })
    } catch (e) {
      failed = true
      out = String((e as { stderr?: string }).stderr)
    }
    expect(failed).toBe(true)
    expect(out).toContain("RAGEN_THREADS=8 is not a thread count")
  })
})
