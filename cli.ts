#!/usr/bin/env -S bun --no-install
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

if (import.meta.main) {
  process.env[BUILTINS_ENV] = fileURLToPath(new URL("./builtins.ts", import.meta.url))
  await runCli(process.argv, builtinPlugins)
}
