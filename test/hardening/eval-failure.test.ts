/**
 * docs/decisions.md#issue-27: a failed `eval` left a results folder holding only config.json. Now the folder
 * records the failure (summary.json, status "failed", the error), and the leaderboard's agents
 * table lists it as a failed run, not as a result and not as an unfinished one.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { AgentEvalSummary } from "../../core/schema/agent-eval.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { readAgentRuns } from "../../plugins/leaderboard/agents.ts"
import { runCli } from "../helpers/cli.ts"
import { tempDir } from "../sweep/helpers.ts"

describe("a failed eval", () => {
  test("records the failure in its folder; the agents table reports it as failed", async () => {
    const root = tempDir("eval-failure")
    const out = join(root, "agents")
    const r = runCli(["eval", "--env", "frozenlake", "--episodes", "2", "--policy", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--policy-option", "retries=0", "--out", out])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    const runs = readdirSync(out)
    expect(runs).toHaveLength(1)
    const files = readdirSync(join(out, runs[0]!)).sort()
    expect(files).toEqual(["config.json", "summary.json"])
    const s = decodeSync(AgentEvalSummary, JSON.parse(readFileSync(join(out, runs[0]!, "summary.json"), "utf8")))
    if (!s.ok) throw new Error(s.message)
    expect(s.value.status).toBe("failed")
    expect(s.value.error).toContain("connection failed")
    expect(s.value.success.n).toBe(0)
    const read = await Effect.runPromise(readAgentRuns(root))
    expect(read.entries).toEqual([])
    expect(read.problems.map((p) => p.message).join("\n")).toContain("the evaluation failed: ")
  }, 60_000)
})
