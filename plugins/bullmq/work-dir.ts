/**
 * A queue worker's work folder is its own: a folder another local user can write into lets them
 * plant a summary.json that the worker would return as a finished run. By default a fresh
 * private folder (mkdtemp: mode 0700); a folder given with --work-dir (to resume runs across
 * restarts, or share warm starts between this user's workers) must belong to this user and be
 * writable by no one else.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { canonicalJson, type RunConfig } from "../../core/host.ts"

/** A fresh private work folder under the system temp folder. */
export const freshWorkDir = (): string => mkdtempSync(join(tmpdir(), "ragen-bench-worker-"))

/** Create `dir` private when missing; why it is not this user's own private folder, or "" when it is. */
export const checkWorkDir = (dir: string): string => {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 })
  const st = statSync(dir)
  if (!st.isDirectory()) return `${dir} is not a folder`
  const uid = process.getuid?.()
  if (uid !== undefined && st.uid !== uid) return `${dir} belongs to user ${st.uid}, not to this user (${uid}): another user could plant finished runs in it`
  if ((st.mode & 0o022) !== 0) return `${dir} is writable by other users (mode ${(st.mode & 0o777).toString(8)}): chmod go-w it, or leave --work-dir out for a fresh private folder`
  return ""
}

/** Whether the run folder's config.json records exactly `config` (a folder is the job's only then). */
export const folderHoldsConfig = (runDir: string, config: RunConfig): boolean => {
  try {
    const file = JSON.parse(readFileSync(join(runDir, "config.json"), "utf8")) as { config?: unknown }
    return canonicalJson(file.config) === canonicalJson(config)
  } catch {
    return false
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Hold the run `runId` of a work folder while `work` runs. Workers that share a folder (--work-dir)
 * can be handed the same run twice, when the coordinator re-enqueues runs a restarted Redis lost
 * while a worker was still on them; two writers in one run folder interleave its files. The
 * second waits for the first (a lock file beside the run folder, naming its process; one whose
 * process is gone is stale) and then finds the run complete, or resumes it.
 */
export const withRunLock = async <A>(workDir: string, runId: string, work: () => Promise<A>, pollMs = 250): Promise<A> => {
  const lock = join(workDir, `${runId}.lock`)
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx", mode: 0o600 })
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
      const holder = Number(readFileSafe(lock))
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) await new Promise((r) => setTimeout(r, pollMs))
      else rmSync(lock, { force: true })
    }
  }
  try {
    return await work()
  } finally {
    rmSync(lock, { force: true })
  }
}

const readFileSafe = (path: string): string => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return ""
  }
}
