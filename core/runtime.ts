/** Which runtime we are on, and the code version (git commit, or the package version). */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { arch, availableParallelism, cpus, platform } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export interface RuntimeInfo {
  readonly name: "bun" | "deno" | "node"
  readonly version: string
  /** Process-wide choices plugins report (e.g. kernels: "tinylm:wasm"); absent when none. */
  readonly notes?: Readonly<Record<string, string>>
}

const notes: Record<string, string> = {}

/** Record a process-wide runtime choice (which kernels run, …) for the run's runtime info. */
export const noteRuntime = (key: string, value: string): void => {
  notes[key] = value
}

export const runtimeInfo = (): RuntimeInfo => {
  const g = globalThis as any
  const extra = Object.keys(notes).length > 0 ? { notes: { ...notes } } : {}
  if (g.Bun) return { name: "bun", version: String(g.Bun.version), ...extra }
  if (g.Deno) return { name: "deno", version: String(g.Deno.version.deno), ...extra }
  return { name: "node", version: String(g.process?.versions?.node ?? "unknown"), ...extra }
}

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), "..")

export const packageVersion = (): string => String(JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")).version)

let cachedCodeVersion: string | undefined
/** "<package version>+<short commit>[-dirty]", or the package version outside git. */
export const codeVersion = (): string => {
  if (cachedCodeVersion) return cachedCodeVersion
  const base = packageVersion()
  try {
    const opts = { cwd: projectRoot, stdio: ["ignore", "pipe", "ignore"] as any, encoding: "utf8" as const }
    const commit = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], opts).trim()
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], opts).trim() !== ""
    cachedCodeVersion = `${base}+${commit}${dirty ? "-dirty" : ""}`
  } catch {
    cachedCodeVersion = base
  }
  return cachedCodeVersion
}

/** The machine: CPU model, cores, OS and architecture (recorded with every run, not hashed). */
export const hostInfo = (): { cpu: string; cores: number; platform: string; arch: string } => ({
  cpu: cpus()[0]?.model?.trim() || "unknown",
  cores: availableParallelism(),
  platform: platform(),
  arch: arch()
})
