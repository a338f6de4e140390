/**
 * `diagnose`: the MI proxies of a served model through HTTP equal the in-process ones on the
 * same batch; the CLI's text/JSON/HTML report; a server without prompt log-probs is refused
 * before any rollout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import type { Server } from "node:http"
import { join } from "node:path"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { rollout } from "../../core/train/rollout.ts"
import envsPlugin from "../../envs/plugin.ts"
import { groupsOf, miOf, rewardProfile } from "../../plugins/openai/diagnose.ts"
import { TinyLMServer } from "../../plugins/openai/serve.ts"
import { startServe } from "../../plugins/openai/serve-http.ts"
import { makeCpuScorer } from "../../plugins/scorers/cpu.ts"
import type { TinyLMPolicy } from "../../plugins/tinylm/policy.ts"
import { makeTinyLM, TinyLMOptions } from "../../plugins/tinylm/spec.ts"
import { bunBin, mainTs, root, runCli } from "../helpers/cli.ts"
import { tempDir } from "../sweep/helpers.ts"
import { fixture, remotePolicy, startFake } from "./fake-server.ts"

const dec = <T>(s: any, x: unknown): T => {
  const r = decodeSync<T>(s, x)
  if (!r.ok) throw new Error(r.message)
  return r.value
}

const spec = envsPlugin.envs!.find((e) => e.id.startsWith("frozenlake"))!
const envOptions = dec(spec.options, {})
let local: TinyLMPolicy
let server: Server
let url: string

beforeAll(async () => {
  local = await makeTinyLM(dec(TinyLMOptions, {}), { vocabulary: spec.vocabulary(envOptions), seed: 5 })
  const s = await startServe(new TinyLMServer(local, { model: "tiny" }), 0)
  server = s.server
  url = s.url
}, 120_000)
afterAll(() => {
  server.closeAllConnections?.()
  server.close()
})

describe("diagnose", () => {
  test("MI proxies scored over HTTP equal the in-process ones on the same batch", async () => {
    const settings = { spec, envOptions, maxTurns: 2, context: "markov" as const, historyTurns: 2, instructions: undefined, maxTokens: 24, temperature: 1, topP: 1, minP: 0, formatPenalty: -0.1 }
    const batch = await rollout(local, settings, [123, 124, 125], 3, new Rng(2))
    const viaHttp = await miOf(makeCpuScorer(remotePolicy({ baseUrl: url, model: "tiny" })), batch, 1, 16)
    const inProcess = await miOf(makeCpuScorer(local), batch, 1, 16)
    expect(viaHttp.firstTurn).not.toBeNull()
    for (const k of ["retrievalAcc", "miEst", "miSeqEst", "hZGivenX", "hZ"] as const) {
      expect(viaHttp.firstTurn![k]).toBeCloseTo(inProcess.firstTurn![k], 5)
      expect(viaHttp.trajectory![k]).toBeCloseTo(inProcess.trajectory![k], 5)
    }
    expect(viaHttp.firstTurn!.regime).toBe(inProcess.firstTurn!.regime)
    const rv = rewardProfile(groupsOf(batch))
    expect(rv.groups.length).toBe(3)
    expect(rv.zeroGroups).toBe(rv.groups.filter((g) => Math.max(...g.returns) === Math.min(...g.returns)).length)
  }, 120_000)

  test("CLI: JSON report with every section, and an HTML page with the charts and tables", () => {
    const html = join(tempDir("openai-diagnose"), "diag.html")
    const r = runCli(["diagnose", "--env", "frozenlake", "--P", "2", "--G", "3", "--max-turns", "1", "--max-rows", "6", "--json", "--html", html], { timeoutMs: 120_000 })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const rep = JSON.parse(r.stdout)
    expect(rep.kind).toBe("diagnose")
    expect(rep.reproducible).toBe(true)
    expect(rep.seeds).toEqual([123, 124])
    expect(rep.entropy.method).toStartWith("exact")
    expect(rep.mi.firstTurn.rows).toBe(6)
    expect(rep.mi.firstTurn.cols).toBe(2)
    expect(typeof rep.rollout.fact_accuracy).toBe("number")
    expect(rep.rewardVariance.groups.length).toBe(2)
    const none = rep.filters.find((f: { id: string }) => f.id.endsWith("/none"))
    expect(none.keptGroups).toEqual([0, 1])
    expect(rep.filters.length).toBeGreaterThanOrEqual(5)
    const page = readFileSync(html, "utf8")
    expect(page).toContain("<svg")
    expect(page).toContain(`data-chart="rv"`)
    expect(page).toContain(`data-chart="kept"`)
    expect(page).toContain(`data-filter="${none.id}"`)
    expect(page).toContain("Content-Security-Policy")
  }, 120_000)

  test("CLI: a server without prompt log-probs is refused before any sampling", async () => {
    const fake = await startFake((q) => (q.path.endsWith("/models") ? { status: 404, body: {} } : { body: fixture("llamacpp-completions-echo.json") }))
    try {
      const p = Bun.spawn([bunBin, mainTs, "diagnose", "--env", "frozenlake", "--policy", "openai", "--base-url", fake.url, "--model", "m"], {
        cwd: root,
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, NO_COLOR: "1" }
      })
      const [code, stderr] = await Promise.all([p.exited, new Response(p.stderr).text()])
      expect(code).toBe(2)
      expect(stderr).toContain(`error: ${fake.url} cannot return prompt log-probs with echo`)
      // /models and the one scoring probe: no rollout was sampled
      expect(fake.requests.filter((q) => q.body?.echo !== true && !q.path.endsWith("/models")).length).toBe(0)
      expect(existsSync(join(root, "diag.html"))).toBe(false)
    } finally {
      await fake.close()
    }
  }, 120_000)
})
