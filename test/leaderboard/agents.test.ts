/** The agents table the leaderboard mounts: schema-checked reading, marks, escaping. */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { agentsHtml, agentsMarkdown, readAgentRuns, verifyNote } from "../../plugins/leaderboard/agents.ts"
import { writeSite } from "../../plugins/leaderboard/site.ts"
import { tempDir } from "../sweep/helpers.ts"

const run = (runId: string, agent: string, success: number, reproducible: boolean) => {
  const config = {
    format: 1,
    kind: "agent-eval",
    runId,
    hash: runId.slice(-12),
    codeVersion: "abc",
    runtime: { name: "bun", version: "1" },
    createdAt: "2026-12-03T00:00:00Z",
    reproducible,
    ...(reproducible ? {} : { note: "sampled from a remote server" }),
    config: {
      env: "envs/frozenlake-v1",
      envOptions: {},
      policy: "openai/openai",
      policyOptions: { model: "m" },
      episodes: 10,
      seedStart: 123,
      temperature: 0.5,
      topP: 1,
      minP: 0,
      maxTokens: 64,
      maxTurns: 5,
      seed: 1
    }
  }
  const summary = {
    format: 1,
    kind: "agent-eval",
    runId,
    status: "complete",
    agent,
    env: "envs/frozenlake-v1",
    episodes: 10,
    success: { mean: success, lo: success / 2, hi: Math.min(1, success + 0.2), n: 10, method: "wilson-95" },
    return: { mean: success, lo: 0, hi: 1, n: 10, method: "bootstrap-percentile-95" },
    means: { success },
    reproducible,
    wallSeconds: 1
  }
  return { config, summary }
}

const write = (root: string, name: string, files: Record<string, unknown>) => {
  mkdirSync(join(root, "agents", name), { recursive: true })
  for (const [f, v] of Object.entries(files)) writeFileSync(join(root, "agents", name, f), JSON.stringify(v))
}

describe("agents table", () => {
  test("reads runs through their schemas, sorts by success, reports a renamed key instead of reading zeros", () => {
    const root = tempDir("agents")
    const a = run("fl-tinylm-aaaaaaaaaaaa", "tinylm ckpt", 0.9, true)
    const b = run("fl-openai-bbbbbbbbbbbb", "openai <script>alert(1)</script> @ http://x/v1", 0.95, false)
    const c = run("fl-openai-cccccccccccc", "broken", 0.5, false)
    write(root, a.config.runId, { "config.json": a.config, "summary.json": a.summary })
    write(root, b.config.runId, { "config.json": b.config, "summary.json": b.summary })
    const { success: _, ...renamed } = c.summary
    write(root, c.config.runId, { "config.json": c.config, "summary.json": { ...renamed, succes: c.summary.success } })
    const { entries, problems } = Effect.runSync(readAgentRuns(root))
    expect(entries.map((e) => e.summary.runId)).toEqual([b.config.runId, a.config.runId])
    expect(problems.length).toBe(1)
    expect(problems[0]!.path).toContain(c.config.runId)
    expect(verifyNote(entries[0]!.config)).toContain("skipped: remote model, not reproducible bit for bit")
    expect(verifyNote(entries[1]!.config)).toBeUndefined()
    const html = agentsHtml(entries, (e, f) => `${e.summary.runId}/${f}`)
    expect(html).not.toContain("<script>")
    expect(html).toContain("&lt;script&gt;")
    expect(html).toContain("no (remote)")
    expect(html).toContain('data-sort="0.95"')
    const md = agentsMarkdown(entries)
    expect(md.split("\n").length).toBe(4)
    expect(md).toContain("| 95.0 [47.5, 100.0] |")
  })
})

describe("agents table on the site", () => {
  test("writeSite adds the agents section to the page and the Markdown, escaped, with relative links", () => {
    const root = tempDir("agents-site")
    const a = run("fl-openai-dddddddddddd", "openai <img src=x onerror=alert(1)>", 0.8, false)
    write(root, a.config.runId, { "config.json": a.config, "summary.json": a.summary })
    const site = Effect.runSync(writeSite([root], join(root, "site")))
    const html = readFileSync(site.files.html, "utf8")
    expect(html).toContain('<table id="agents"')
    expect(html).toContain("openai &lt;img src=x onerror=alert(1)&gt;")
    expect(html).not.toContain("<img src=x")
    // Its files are copied into the site (a copied site/ keeps its links); only files it has are linked.
    expect(html).toContain(`href="./agents/${a.config.runId}/config.json"`)
    expect(readFileSync(join(root, "site", "agents", a.config.runId, "config.json"), "utf8")).toContain(a.config.runId)
    expect(html).not.toContain(`agents/${a.config.runId}/metrics.jsonl`)
    expect(readFileSync(site.files.md, "utf8")).toContain("## Agents")
    expect(readFileSync(site.files.md, "utf8")).toContain("80.0 [40.0, 100.0]")
  })
})
