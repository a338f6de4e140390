/**
 * Runs the adapter probe (probe.ts) in a Deno child with VK_LOADER_DEBUG=error,warn and turns
 * its facts and the loader's lines into diagnose.ts's one line. Used when no adapter is found
 * (scorer.ts openBackend), by `ragen-bench list scorers`, and by docs/webgpu.md's setup check.
 * A child (not this process) because the loader reads VK_LOADER_DEBUG once, when it loads.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { projectRoot } from "../../core/host.ts"
import { defaultDenoPath, workerEnv } from "./child.ts"
import { type Diagnosis, diagnose, type VulkanFacts } from "./diagnose.ts"

/** Loader lines that say nothing about drivers (Mesa's device-select layer on every run). */
const NOISE = /MESA_device_select|vkEnumerateInstanceLayerProperties/

export interface ProbeOptions {
  readonly deno?: string | undefined
  /** Extra environment for the probe (tests: VK_DRIVER_FILES, LD_LIBRARY_PATH, DENO_WEBGPU_BACKEND). */
  readonly env?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
}

const run = (deno: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ out: string; err: string; code: number | null; failed?: string }> =>
  new Promise((resolve) => {
    const script = join(projectRoot, "plugins", "webgpu", "probe.ts")
    const child = spawn(deno, ["run", "--quiet", "--no-prompt", "--no-lock", "--allow-ffi", "--allow-read", "--allow-env", script], { env, stdio: ["ignore", "pipe", "pipe"] })
    let out = "",
      err = ""
    // bounded: the facts are a few KiB, the loader's log a few lines
    child.stdout.on("data", (c: Uint8Array) => (out = (out + new TextDecoder().decode(c)).slice(-(1 << 20))))
    child.stderr.on("data", (c: Uint8Array) => (err = (err + new TextDecoder().decode(c)).slice(-(1 << 16))))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("error", (e) => (clearTimeout(timer), resolve({ out, err, code: null, failed: e.message })))
    child.on("close", (code) => (clearTimeout(timer), resolve({ out, err, code })))
  })

/** The probe's diagnosis; a probe that cannot run says so as the line. */
export const probeWebGpu = async (options: ProbeOptions = {}): Promise<Diagnosis> => {
  const env = { ...workerEnv(), VK_LOADER_DEBUG: "error,warn", NO_COLOR: "1", ...options.env }
  const r = await run(options.deno ?? defaultDenoPath(), env, options.timeoutMs ?? 60_000)
  if (r.failed) return { ok: false, line: `the WebGPU probe needs Deno: ${r.failed} (npm install puts it in node_modules/.bin, or set $RAGEN_DENO)` }
  const last = r.out.trim().split("\n").at(-1) ?? ""
  let facts: Omit<VulkanFacts, "loaderLog">
  try {
    facts = JSON.parse(last)
  } catch {
    const why = r.err.trim().split("\n").at(-1) ?? `exit ${r.code}`
    return { ok: false, line: `the WebGPU probe failed (${why})` }
  }
  const loaderLog = [...new Set(r.err.split("\n").filter((l) => /^(ERROR|WARNING):/.test(l) && !NOISE.test(l)))].map((l) => l.replace(/\s+/g, " "))
  return diagnose({ ...facts, loaderLog })
}

let cached: Promise<Diagnosis> | undefined
/** probeWebGpu once per process (list scorers shows it under both WebGPU scorers). */
export const probeOnce = (): Promise<Diagnosis> => (cached ??= probeWebGpu())
