/**
 * The WebGPU page in headless Chromium (Debian's `chromium`, driven by playwright-core): served
 * on 127.0.0.1 by plugins/webgpu/serve.ts (a secure origin: about:blank has no navigator.gpu),
 * it loads a checkpoint and a scores request and runs the engine's WGSL kernels; its matrix
 * must match the CPU scorer's. Headless Chromium 156 gets a SwiftShader adapter from
 * --enable-unsafe-webgpu alone (tried also: --use-webgpu-adapter=swiftshader, --use-angle=
 * swiftshader, --enable-features=Vulkan with --use-vulkan=native: all SwiftShader here).
 * If a Chromium build offers no adapter, the same page module runs under Deno's WebGPU instead
 * (test/webgpu/deno-page.ts), so the test always executes real WebGPU.
 * Skips with a reason when chromium is missing, fails under CI=true.
 */
import { describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium } from "playwright-core"
import { makeCpuScorer } from "../../plugins/scorers/cpu.ts"
import { startPageServer } from "../../plugins/webgpu/serve.ts"
import { fixtureBatch, fixturePolicy } from "./fixture.ts"
import { requireAdapter, runDeno } from "./helpers.ts"
import { compare } from "./kernel-parity.ts"

const CHROMIUM = "/usr/bin/chromium"
const available = existsSync(CHROMIUM)
if (!available) {
  if (process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: .ci/run must apt-get install chromium`)
  console.log(`skipping the WebGPU page test: ${CHROMIUM} is missing (apt-get install -y chromium)`)
}

/** Flags that give headless Chromium a WebGPU adapter (SwiftShader without a GPU). */
export const WEBGPU_FLAGS = ["--enable-unsafe-webgpu"]

describe("WebGPU page in headless Chromium", () => {
  test("scores a checkpoint's request like the CPU scorer", async () => {
    if (!available) return // reason printed above
    const dir = mkdtempSync(join(tmpdir(), "ragen-webgpu-page-"))
    const policy = fixturePolicy()
    const ckpt = join(dir, "policy.safetensors")
    await policy.save(ckpt)
    const batch = fixtureBatch(10, 5)
    const request = { prompts: batch.prompts, reasonings: batch.reasonings }
    const want = await makeCpuScorer(policy).score(batch.reasonings, batch.prompts)
    const server = await startPageServer({ checkpoint: new Uint8Array(readFileSync(ckpt)), request })
    const profile = mkdtempSync(join(tmpdir(), "ragen-chromium-"))
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", ...WEBGPU_FLAGS]
    })
    let result: any
    let where = "chromium"
    try {
      const page = await browser.newPage()
      const errors: string[] = []
      page.on("pageerror", (e) => errors.push(String(e)))
      // a page error ends the wait at once instead of at the timeout
      const failed = new Promise<never>((_, reject) => page.on("pageerror", (e) => reject(new Error(`page error: ${e}`))))
      await page.goto(server.runUrl)
      await Promise.race([page.waitForFunction(() => (window as any).__webgpuResult !== undefined, undefined, { timeout: 120_000 }), failed])
      result = await page.evaluate(() => (window as any).__webgpuResult)
      expect(errors).toEqual([])
      if (result.error && /navigator\.gpu|no adapter/.test(result.error)) {
        // no adapter in this Chromium: the page's module under Deno's WebGPU instead
        console.log(`chromium offers no WebGPU adapter with ${WEBGPU_FLAGS.join(" ")} (${result.error}); running the page module under Deno`)
        if (!requireAdapter("the WebGPU page test's Deno fallback")) return
        const req = join(dir, "request.json")
        writeFileSync(req, JSON.stringify(request))
        const r = runDeno("test/webgpu/deno-page.ts", [ckpt, req], 120_000)
        result = r.json
        where = "deno"
      } else {
        // The screenshot stays in the test's temporary folder (tests never write into the tree).
        await page.screenshot({ path: join(dir, "webgpu-page.png"), fullPage: true })
      }
    } finally {
      await browser.close()
      server.stop()
      rmSync(profile, { recursive: true, force: true })
      rmSync(dir, { recursive: true, force: true })
    }
    expect(result.error).toBeUndefined()
    console.log(`WebGPU page: ${where}, adapter ${result.adapter}, ${result.scores.rows}×${result.scores.cols} in ${Math.round(result.ms)} ms`)
    expect(result.adapter.length).toBeGreaterThan(0)
    expect(result.scores.rows).toBe(10)
    expect(result.scores.cols).toBe(5)
    const sum = compare(result.scores.sum, want.sum),
      mean = compare(result.scores.tokenMean, want.tokenMean)
    console.log(`page vs CPU scorer: sum max abs ${sum.maxAbs.toExponential(2)} (tol 1e-3), per-token mean max abs ${mean.maxAbs.toExponential(2)} (tol 1e-4)`)
    expect(sum.maxAbs).toBeLessThanOrEqual(1e-3)
    expect(mean.maxAbs).toBeLessThanOrEqual(1e-4)
  }, 180_000)
})
