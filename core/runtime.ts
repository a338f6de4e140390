/** Which runtime we are on, and the code version (git commit, or the package version). */
import { type ChildProcess, execFileSync, type SpawnOptions, type SpawnSyncOptions, type SpawnSyncReturns, spawn, spawnSync } from "node:child_process"
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

/** The package's own Bun configuration: Bun reads $cwd/bunfig.toml unless told, and the cwd is the user's. */
export const bunConfig = join(projectRoot, "bunfig.toml")

/**
 * argv that runs a .ts file on this runtime (Deno needs `run -A`). Bun's children never install a
 * package at run time (`--no-install`, as the launcher bin/ragen-bench.mjs): a worker loads the
 * user's plugins, whose folder may have no node_modules; and, as the launcher, they read the
 * package's bunfig.toml and no .env, not the files of the user's working directory
 * (core/cli/working-dir.ts). The one place a child's command line is written.
 */
export const runtimeArgs = (file: string): string[] => ((globalThis as any).Deno ? ["run", "-A", file] : ["--no-install", "--no-env-file", `--config=${bunConfig}`, file])

/** Start a child running the .ts `file` with `args` on this runtime (sweep workers, BullMQ children, benchmarks). */
export const spawnOnRuntime = (file: string, args: ReadonlyArray<string>, options: SpawnOptions): ChildProcess => spawn(process.execPath, [...runtimeArgs(file), ...args], options)

/** The same, waiting for the child to end. */
export const spawnOnRuntimeSync = (file: string, args: ReadonlyArray<string>, options: SpawnSyncOptions): SpawnSyncReturns<Buffer | string> =>
  spawnSync(process.execPath, [...runtimeArgs(file), ...args], options)
