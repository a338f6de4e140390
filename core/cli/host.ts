/**
 * The CLI host: mounts the core's own commands and every command the registered plugins
 * contribute, parses flags with cac and runs the command's Effect with the Registry.
 * The composition root (cli.ts at the project root) calls `runCli` with the built-in plugins;
 * `ragen-bench.config.ts` and `--plugin` add to them, never replace them.
 *
 * Exit codes: 0 done; 2 a user mistake (one line "error: …" naming the field and the fix);
 * 1 a defect (a bug: the stack is printed); 130 interrupted.
 */
import { cac } from "cac"
import { Cause, Effect, Exit } from "effect"
import type { CommandDef, PluginInput } from "../contracts/index.ts"
import { loadUserPlugins } from "../config.ts"
import { isUserError } from "../errors.ts"
import { buildRegistry, commandName, type RegistryData, registryLayerOf } from "../registry.ts"
import { packageVersion } from "../runtime.ts"
import { nearest, terminalSafe } from "../text.ts"
import { coreCommands } from "./commands/index.ts"

const fail = (message: string): never => {
  console.error(`error: ${terminalSafe(message)}`)
  process.exit(2)
}

/** What `--plugin` and `--config` say, read before cac so that plugin commands can be mounted. */
export const pluginFlags = (argv: ReadonlyArray<string>): { plugins: string[]; config: string | undefined } => {
  const plugins: string[] = []
  let config: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === "--") break
    const [flag, inline] = a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined]
    if (flag !== "--plugin" && flag !== "--config") continue
    const value = inline ?? argv[++i]
    if (value === undefined || value.startsWith("--")) fail(`${flag} needs a file path, e.g. ${flag} ./my-plugin.ts`)
    if (flag === "--plugin") plugins.push(value!)
    else config = value
  }
  return { plugins, config }
}

/**
 * `--steps -1`: cac reads "-1" as a flag of its own ("Unknown option `-1`"). Joined to its flag
 * (`--steps=-1`) the value reaches the command, whose check names the flag and the rule.
 */
export const joinNegativeValues = (argv: ReadonlyArray<string>): string[] => {
  const out: string[] = []
  for (const a of argv) {
    const prev = out.at(-1)
    if (/^-\d/.test(a) && prev !== undefined && /^--[A-Za-z][\w-]*$/.test(prev)) out[out.length - 1] = `${prev}=${a}`
    else out.push(a)
  }
  return out
}

const didYouMean = (word: string, known: ReadonlyArray<string>): string => {
  const near = nearest(word, known)
  return near ? ` (did you mean ${near}?)` : ""
}

const kebab = (flag: string): string => flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

/**
 * cac's "Unknown option `--filterValu`" (it camel-cases the flag) as the user wrote it, with the
 * nearest flag of the matched command or the global ones.
 */
const cacMessage = (message: string, cli: ReturnType<typeof cac>): string => {
  const flag = /^Unknown option `(--?[\w-]+)`/.exec(message)?.[1]
  if (!flag) return message
  const options = [...(cli.matchedCommand?.options ?? []), ...cli.globalCommand.options]
  const known = options.flatMap((o) => o.rawName.match(/--?[\w-]+/g) ?? [])
  return `unknown option ${kebab(flag)}${didYouMean(kebab(flag), known)}`
}

const runCommand = async (cmd: CommandDef, data: RegistryData, args: any[], opts: Record<string, any>): Promise<void> => {
  const exit = await Effect.runPromiseExit(cmd.run(args, opts).pipe(Effect.provide(registryLayerOf(data))))
  if (Exit.isSuccess(exit)) return
  if (Cause.hasInterruptsOnly(exit.cause)) process.exit(130)
  const err = Cause.squash(exit.cause)
  if (isUserError(err)) fail(err.message)
  console.error(Cause.pretty(exit.cause))
  process.exit(1)
}

/**
 * The CLI with the core's commands and every plugin command mounted; `onRun` runs a matched
 * command. Tests parse documented command lines with it (test/cli/doc-commands.test.ts).
 */
export const buildCli = (data: RegistryData, onRun: (cmd: CommandDef, args: any[], opts: Record<string, any>) => Promise<void>) => {
  const cli = cac("ragen-bench")
  cli.option("--plugin <file>", "Register a plugin from a .ts file (repeatable); it runs code: load only files you trust")
  cli.option("--config <file>", "Config file adding plugins (default: the project's own ragen-bench.config.ts)")
  const mounted = [...coreCommands, ...data.entries.commands.map((e) => e.value)]
  for (const cmd of mounted) {
    const c = cli.command(cmd.pattern, cmd.description)
    for (const o of cmd.options ?? []) c.option(o.flags, o.description, o.default === undefined ? undefined : { default: o.default })
    for (const e of cmd.examples ?? []) c.example(e)
    c.action(async (...a: any[]) => {
      const opts = a.pop() as Record<string, any>
      await onRun(cmd, a, opts)
    })
  }
  cli.command("[...args]", "With no command: show this help").action((args: string[]) => {
    if (args.length > 0) fail(`unknown command "${args[0]}"${didYouMean(String(args[0]), mounted.map(commandName))}; run ragen-bench --help for the list of commands`)
    cli.outputHelp()
  })
  // cac marks a negated flag (--no-mi) "(default: true)", the default of the option it negates
  // (mi), which reads as if the flag were on by default: left out.
  cli.help((sections) => sections.map((s) => ({ ...s, body: s.body.replace(/^(\s+--no-[^\n]*?) \(default: true\)$/gm, "$1") })))
  cli.version(packageVersion())
  return cli
}

/** Why a command line would not parse (unknown command or flag, missing argument), or undefined when it does. */
export const parseProblem = (cli: ReturnType<typeof buildCli>, argv: ReadonlyArray<string>): string | undefined => {
  // --help and --version print as cac parses: left out, the rest of the line is still checked.
  const help = argv.some((a) => a === "--help" || a === "-h" || a === "--version" || a === "-v")
  const rest = argv.filter((a) => a !== "--help" && a !== "-h" && a !== "--version" && a !== "-v")
  try {
    const parsed = cli.parse(["bun", "ragen-bench", ...joinNegativeValues(rest)], { run: false })
    const cmd = cli.matchedCommand
    if (!cmd) return "no command matched"
    if (cmd.isDefaultCommand && parsed.args.length > 0) return `unknown command "${parsed.args[0]}"`
    cmd.checkUnknownOptions()
    if (help) return undefined
    cmd.checkRequiredArgs()
    cmd.checkOptionValue()
    return undefined
  } catch (e) {
    return (e as Error)?.name === "CACError" ? cacMessage((e as Error).message, cli) : String(e)
  }
}

export const runCli = async (argv: ReadonlyArray<string>, builtins: ReadonlyArray<PluginInput>): Promise<void> => {
  const flags = pluginFlags(argv.slice(2))
  const loaded = await Effect.runPromiseExit(Effect.flatMap(loadUserPlugins(flags.plugins, flags.config), (user) => buildRegistry([...builtins, ...user])))
  if (Exit.isFailure(loaded)) {
    const err = Cause.squash(loaded.cause)
    if (isUserError(err)) fail(err.message)
    console.error(Cause.pretty(loaded.cause))
    process.exit(1)
  }
  const data = (loaded as Exit.Success<RegistryData>).value
  const cli = buildCli(data, (cmd, args, opts) => runCommand(cmd, data, args, opts))
  let running: unknown
  try {
    cli.parse(joinNegativeValues(argv), { run: false })
    running = cli.runMatchedCommand()
  } catch (e) {
    // cac's own errors (unknown option, missing argument) are user mistakes; anything else is a bug.
    if ((e as Error)?.name === "CACError") fail(`${cacMessage((e as Error).message, cli)}; run ragen-bench --help`)
    throw e
  }
  await running
}
