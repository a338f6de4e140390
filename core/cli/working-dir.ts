/**
 * No code from the working directory (README.md, "Trust boundaries"): the folder the CLI is run from
 * may be someone else's (a received submission), and Bun, unless told, loads `.env*` files from
 * it into the environment and reads its `bunfig.toml`, whose `preload` runs code before ours.
 * The launcher (bin/ragen-bench.mjs) starts Bun with `--no-env-file` and `--config=<package>/bunfig.toml`;
 * a Bun started without them in a folder that holds either file has already read it, so the CLI
 * refuses to go on, naming the file and how to start it. Under Deno neither file is read.
 */
import { existsSync, readdirSync, realpathSync } from "node:fs"
import { join } from "node:path"

/** The .env files Bun loads from the working directory: .env, .env.local, .env.<NODE_ENV>[.local]. */
export const dotenvFiles = (cwd: string): string[] => {
  let names: string[]
  try {
    names = readdirSync(cwd)
  } catch {
    return []
  }
  return names.filter((n) => n === ".env" || n.startsWith(".env.")).sort()
}

const real = (p: string): string => {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

const hasFlag = (execArgv: ReadonlyArray<string>, names: ReadonlyArray<string>): boolean => execArgv.some((a) => names.some((n) => a === n || a.startsWith(`${n}=`)))

export interface WorkingDirCheck {
  /** Why the CLI must not go on (it has read a file of the working directory), or undefined. */
  readonly refuse?: string
  /** A note for files present but not read (the launcher's flags kept them out). */
  readonly note?: string
}

/**
 * What Bun read from `cwd` given the flags it was started with (`process.execArgv`), for a CLI
 * whose own package is at `packageRoot` (its bunfig.toml is its own, read on purpose).
 */
export const checkWorkingDir = (cwd: string, execArgv: ReadonlyArray<string>, packageRoot: string, isDeno: boolean): WorkingDirCheck => {
  if (isDeno) return {}
  const start = `start it with the launcher (npx ragen-bench, or node ${join(packageRoot, "bin", "ragen-bench.mjs")}), which passes --no-env-file --config=${join(packageRoot, "bunfig.toml")} to Bun, or run it from another folder`
  const envs = dotenvFiles(cwd)
  const noEnv = hasFlag(execArgv, ["--no-env-file"])
  if (envs.length > 0 && !noEnv) {
    return {
      refuse: `refusing to run: Bun loaded ${envs.map((n) => join(cwd, n)).join(", ")} from the working directory into the environment (a .env there can name code for ragen-bench to run); ${start}`
    }
  }
  const cfg = join(cwd, "bunfig.toml")
  if (existsSync(cfg) && real(cfg) !== real(join(packageRoot, "bunfig.toml")) && !hasFlag(execArgv, ["--config", "-c"])) {
    return { refuse: `refusing to run: Bun read ${cfg} from the working directory (a bunfig.toml there can preload code before ragen-bench starts); ${start}` }
  }
  return envs.length > 0 ? { note: `note: ${envs.map((n) => `./${n}`).join(", ")} not loaded (ragen-bench reads no .env from the working directory); export the variables you need in the shell` } : {}
}
