/** Run the CLI in a child process (Bun or Deno) and capture its output. */
import { spawnSync } from "node:child_process"
import { join } from "node:path"

export const root = join(import.meta.dir, "..", "..")
export const bunBin = join(root, "node_modules", ".bin", "bun")
export const denoBin = join(root, "node_modules", ".bin", "deno")
export const mainTs = join(root, "cli.ts")

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export const runCli = (args: ReadonlyArray<string>, opts: { cwd?: string; runtime?: "bun" | "deno"; input?: string; env?: Record<string, string>; timeoutMs?: number } = {}): CliResult => {
  const cmd = opts.runtime === "deno" ? denoBin : bunBin
  const pre = opts.runtime === "deno" ? ["run", "-A", mainTs] : [mainTs]
  const r = spawnSync(cmd, [...pre, ...args], {
    cwd: opts.cwd ?? root,
    input: opts.input ?? "",
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...opts.env },
    timeout: opts.timeoutMs ?? 60_000
  })
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" }
}
