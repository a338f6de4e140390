/**
 * What the side-by-side server benchmarks (env-server.ts, serve-throughput.ts) share: their flags,
 * the checkouts they compare (this one, and `--compare DIR`), and a process's CPU time.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

const argv = process.argv.slice(2)

/** The value after `--name`, else the default. */
export const flag = (name: string, dflt: string): string => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1]! : dflt
}

/** This checkout, and the one `--compare DIR` names (run alternately with it). */
export const roots: ReadonlyArray<{ label: string; dir: string }> = [
  { label: "this", dir: join(import.meta.dir, "..") },
  ...(argv.includes("--compare") ? [{ label: "other", dir: argv[argv.indexOf("--compare") + 1]! }] : [])
]

/** CPU seconds (user + system) a process has used so far (Linux /proc; NaN elsewhere). */
export const cpuSeconds = (pid: number): number => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8")
    const rest = f.slice(f.lastIndexOf(")") + 2).split(" ")
    return (Number(rest[11]) + Number(rest[12])) / 100 // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN
  }
}
