/** Run the CLI in a child process (Bun or Deno) and capture its output. */
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { delimiter, join } from "node:path"

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

/**
 * PATH without Bun, as on a machine with only Node and npm: no folder holding a `bun` or `bunx`,
 * no node_modules/.bin (node, npm and the system's tools stay). The package's `bin` must find the
 * Bun of its `bun` dependency by itself (bin/ragen-bench.mjs).
 */
export const pathWithoutBun = (path = process.env.PATH ?? ""): string =>
  [...new Set(path.split(delimiter))].filter((d) => d !== "" && !d.includes("node_modules") && !existsSync(join(d, "bun")) && !existsSync(join(d, "bunx"))).join(delimiter)

/** The package's `bin` (package.json), absolute. */
export const binPath = join(root, JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin["ragen-bench"])
