#!/usr/bin/env bun
/**
 * ragen-bench CLI: the composition root. Parses flags with cac, loads the built-in and user
 * plugins into the Registry, runs the command's Effect. A user mistake prints one line
 * "error: …" naming the field and the fix, and exits 2.
 */
import { cac } from "cac"
import { Cause, Effect, Exit } from "effect"
import { builtinPlugins } from "../builtins.ts"
import { loadUserPlugins } from "../config.ts"
import { isUserError } from "../errors.ts"
import { Registry } from "../registry.ts"
import { packageVersion } from "../runtime.ts"
import type { CommandDef } from "./command.ts"
import { commands } from "./commands/index.ts"
import { listFlag } from "./flags.ts"


const fail = (message: string): never => {
  console.error(`error: ${message}`)
  process.exit(2)
}

const runCommand = async (cmd: CommandDef, args: any[], opts: Record<string, any>): Promise<void> => {
  const program = Effect.gen(function*() {
    const user = yield* loadUserPlugins(listFlag(opts.plugin), opts.config)
    const builtins = yield* Effect.promise(builtinPlugins)
    return yield* cmd.run(args, opts).pipe(Effect.provide(Registry.layerFrom([...builtins, ...user])))
  })
  const exit = await Effect.runPromiseExit(program)
  if (Exit.isFailure(exit)) {
    if (Cause.hasInterruptsOnly(exit.cause)) process.exit(130)
    const err = Cause.squash(exit.cause)
    if (isUserError(err)) fail(err.message)
    console.error(Cause.pretty(exit.cause))
    process.exit(1)
  }
}

export const main = (argv: string[]): void => {
  const cli = cac("ragen-bench")
  cli.option("--plugin <file>", "Register a plugin from a .ts file (repeatable)")
  cli.option("--config <file>", "Config file (default: ./ragen-bench.config.ts when present)")
  for (const cmd of commands) {
    const c = cli.command(cmd.pattern, cmd.description)
    for (const o of cmd.options ?? []) c.option(o.flags, o.description, o.default === undefined ? undefined : { default: o.default })
    for (const e of cmd.examples ?? []) c.example(e)
    c.action(async (...a: any[]) => {
      const opts = a.pop() as Record<string, any>
      await runCommand(cmd, a, opts)
    })
  }
  cli.command("[...args]", "With no command: show this help").action((args: string[]) => {
    if (args.length > 0) fail(`unknown command "${args[0]}"; run ragen-bench --help for the list of commands`)
    cli.outputHelp()
  })
  cli.help()
  cli.version(packageVersion())
  try {
    cli.parse(argv, { run: false })
    const r = cli.runMatchedCommand() as unknown
    if (r && typeof (r as Promise<void>).catch === "function") {
      ;(r as Promise<void>).catch((e) => {
        console.error(e instanceof Error ? e.stack : e)
        process.exit(1)
      })
    }
  } catch (e) {
    // cac's own errors: unknown option, missing argument.
    fail(`${(e as Error).message}; run ragen-bench --help`)
  }
}

if (import.meta.main) main(process.argv)
