#!/usr/bin/env -S bun --no-install --no-env-file
/**
 * ragen-bench: the composition root. The core's CLI host with the built-in plugins; user
 * plugins (ragen-bench.config.ts, --plugin) are added by the host. Sweep workers, which build
 * their own registry, are told where the built-ins are (BUILTINS_ENV), as they are told the
 * user plugins' paths.
 */
import { fileURLToPath } from "node:url"
import { builtinPlugins } from "./builtins.ts"
import { runCli } from "./core/cli/host.ts"
import { BUILTINS_ENV } from "./core/config.ts"
import { checkWorkingDir } from "./core/cli/working-dir.ts"

if (import.meta.main) {
  // No code from the working directory (core/cli/working-dir.ts): refuse when Bun has read its .env or bunfig.toml.
  const wd = checkWorkingDir(process.cwd(), process.execArgv, fileURLToPath(new URL(".", import.meta.url)), (globalThis as { Deno?: unknown }).Deno !== undefined)
  if (wd.refuse) {
    process.stderr.write(`${wd.refuse}\n`)
    process.exit(2)
  }
  if (wd.note) process.stderr.write(`${wd.note}\n`)
  process.env[BUILTINS_ENV] = fileURLToPath(new URL("./builtins.ts", import.meta.url))
  await runCli(process.argv, builtinPlugins)
}
