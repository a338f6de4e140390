#!/usr/bin/env node
// The package's `bin`: runs cli.ts on the Bun that came with the package, so `npx ragen-bench`
// needs nothing on PATH but Node and npm (after `npm install <folder>`, `npm link`, a tarball or
// the registry). The `bun` dependency's binary is found the way esbuild and Biome find theirs:
// resolved from this package's own location (Node runs this file at its real path, so a folder
// install or `npm link` resolves the clone's node_modules). Plain JavaScript, no dependencies.
//
// Bun is started with this package's bunfig.toml (`--config`), not the one of the current
// directory (Bun reads $cwd/bunfig.toml by default, and its `preload` would run code first), with
// `--no-env-file` (Bun would load the current directory's .env files into the environment; cli.ts
// refuses to run when it finds that happened: core/cli/working-dir.ts) and with `--no-install`
// (never install a package at run time; bunfig.toml's [install] auto = "disable" says the same).
// argv, stdio, the exit code and signals are passed through.
import { spawn } from "node:child_process"
import { existsSync, readFileSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { constants } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const pkgRoot = dirname(dirname(fileURLToPath(import.meta.url)))
const require = createRequire(import.meta.url)

/** A real executable, not the placeholder bun's package ships until its postinstall script has run. */
const isBinary = (file) => {
  try {
    return statSync(file).size > 1_000_000
  } catch {
    return false
  }
}

const isMusl = () => {
  if (process.platform !== "linux") return false
  try {
    return !process.report.getReport().header.glibcVersionRuntime
  } catch {
    return existsSync("/etc/alpine-release")
  }
}

/** The platform packages bun's install script would pick from (its optionalDependencies), best first. */
const platformPackages = () => {
  const arch = process.arch === "arm64" ? "aarch64" : process.arch
  const os = process.platform === "win32" ? "windows" : process.platform
  if (os === "android") return [`@oven/bun-linux-${arch}-android`]
  const base = `@oven/bun-${os}-${arch}${isMusl() ? "-musl" : ""}`
  return [base, `${base}-baseline`]
}

const findBun = () => {
  const looked = []
  let bunPkg
  try {
    bunPkg = require.resolve("bun/package.json")
  } catch {
    return { looked: [`the "bun" package, from ${pkgRoot}`] }
  }
  const bunDir = dirname(bunPkg)
  // bun's package.json `bin` names bin/bun.exe on every platform; its postinstall puts the binary there.
  const bins = JSON.parse(readFileSync(bunPkg, "utf8")).bin
  const main = join(bunDir, typeof bins === "string" ? bins : (bins?.bun ?? "bin/bun.exe"))
  looked.push(main)
  if (isBinary(main)) return { bun: main }
  // Installed with --ignore-scripts: the binary is still in the platform package.
  const fromBun = createRequire(bunPkg)
  for (const name of platformPackages()) {
    try {
      const dir = dirname(fromBun.resolve(`${name}/package.json`))
      const exe = join(dir, "bin", process.platform === "win32" ? "bun.exe" : "bun")
      looked.push(exe)
      if (isBinary(exe)) return { bun: exe }
    } catch {
      looked.push(name)
    }
  }
  return { looked }
}

const found = findBun()
if (!found.bun) {
  process.stderr.write(
    `ragen-bench: cannot find the Bun runtime that comes with the package (looked at ${found.looked.join(", ")}).\n` +
      `Install ragen-bench's dependencies with their install scripts (npm install, without --ignore-scripts), then run it again.\n`
  )
  process.exit(127)
}

const child = spawn(found.bun, ["--no-install", "--no-env-file", `--config=${join(pkgRoot, "bunfig.toml")}`, join(pkgRoot, "cli.ts"), ...process.argv.slice(2)], {
  stdio: "inherit"
})

// Signals sent to this process go on to Bun. Ctrl-C in a terminal already reaches Bun (same
// process group): passing it on as well would be a second Ctrl-C, which makes `train` and `sweep`
// quit at once instead of stopping after the current step, so SIGINT is passed on only when this
// process is not attached to a terminal (another program sent it).
const onTerminal = Boolean(process.stdin.isTTY || process.stdout.isTTY || process.stderr.isTTY)
const relayed = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR2"].filter((s) => process.platform !== "win32" || s === "SIGINT")
const handlers = new Map()
for (const signal of relayed) {
  const handler = () => {
    if (signal === "SIGINT" && onTerminal) return
    try {
      child.kill(signal)
    } catch {}
  }
  handlers.set(signal, handler)
  process.on(signal, handler)
}

child.on("error", (e) => {
  process.stderr.write(`ragen-bench: cannot start ${found.bun}: ${e.message}\n`)
  process.exit(127)
})
child.on("exit", (code, signal) => {
  for (const [s, h] of handlers) process.off(s, h)
  if (signal) {
    // End the way Bun ended, so a caller sees the same signal (or 128 + its number).
    process.kill(process.pid, signal)
    setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 1)), 1000)
    return
  }
  process.exit(code ?? 1)
})
