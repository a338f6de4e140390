#!/usr/bin/env -S bun --no-install
/**
 * ragen-bench: the composition root. The core's CLI host with the built-in plugins; user
 * plugins (ragen-bench.config.ts, --plugin) are added by the host.
 */
import { builtinPlugins } from "./builtins.ts"
import { runCli } from "./core/cli/host.ts"

if (import.meta.main) await runCli(process.argv, builtinPlugins)
