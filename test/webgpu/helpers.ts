/**
 * Running WebGPU from the Bun tests: Deno (node_modules/.bin/deno) on Mesa's lavapipe, with
 * XDG_RUNTIME_DIR set. `probe` says once whether Deno finds an adapter; a test without one
 * skips with the printed reason, and fails under CI=true (.ci/run installs mesa-vulkan-drivers).
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import type { Policy, ScorerContext } from "../../core/contracts/index.ts"
import { buildRegistry } from "../../core/registry.ts"
import { scorerContext } from "../../core/services.ts"
import scorersPlugin from "../../plugins/scorers/plugin.ts"
import { defaultDenoPath, workerEnv } from "../../plugins/webgpu/child.ts"
import webgpuPlugin from "../../plugins/webgpu/plugin.ts"
import { root } from "../helpers/cli.ts"

export const deno = defaultDenoPath()

/** Run a Deno script of this repo; its last stdout line parsed as JSON. */
export const runDeno = (script: string, args: string[] = [], timeoutMs = 240_000): { json: any; stderr: string; status: number | null } => {
  const r = spawnSync(deno, ["run", "-A", "--no-lock", "--quiet", join(root, script), ...args], {
    cwd: root,
    env: { ...workerEnv(), NO_COLOR: "1" },
    encoding: "utf8",
    timeout: timeoutMs,
    maxBuffer: 64 << 20
  })
  const lines = (r.stdout ?? "").trim().split("\n")
  let json: any
  try {
    json = JSON.parse(lines[lines.length - 1] ?? "")
  } catch {
    json = undefined
  }
  return { json, stderr: r.stderr ?? "", status: r.status }
}

let probed: string | undefined | null = null
/** Undefined when Deno has a WebGPU adapter here, else why not. */
export const noAdapterReason = (): string | undefined => {
  if (probed !== null) return probed
  if (!existsSync(deno)) return (probed = `${deno} is missing (npm install)`)
  const r = spawnSync(deno, ["eval", "const a = await navigator.gpu?.requestAdapter(); console.log(a ? 'adapter' : 'none')"], { env: workerEnv(), encoding: "utf8", timeout: 60_000 })
  probed = (r.stdout ?? "").includes("adapter")
    ? undefined
    : `Deno finds no WebGPU adapter (apt-get install -y mesa-vulkan-drivers; XDG_RUNTIME_DIR set): ${(r.stderr ?? "").trim().split("\n").pop() ?? ""}`
  return probed
}

/** Skip (printed) locally, throw under CI=true. */
export const requireAdapter = (what: string): boolean => {
  const why = noAdapterReason()
  if (why === undefined) return true
  if (process.env.CI === "true") throw new Error(`${what}: ${why}`)
  console.log(`skipping ${what}: ${why}`)
  return false
}

/** A scorer context over a registry of the CPU and WebGPU scorer plugins (what the trainer passes). */
export const scorerCtx = (policy: Policy): ScorerContext => scorerContext(Effect.runSync(buildRegistry([scorersPlugin, webgpuPlugin])), policy)
