// The Python package (clients/python, `pip install ./clients/python`) against a real
// `ragen-bench env serve` on 127.0.0.1: a fresh venv in a temporary folder, gymnasium and numpy
// from pip as the machine configures it, then test/envs/python-package-check.py runs Gymnasium's
// check_env, a SyncVectorEnv and an AsyncVectorEnv, unseeded resets, the trainer's parse and
// format penalty, and the package's own `env serve --stdio` child. Skips with a printed reason
// when python3, its venv module or pip's index is missing; under CI=true a skip is a failure.
import { describe, expect, test } from "bun:test"
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bunBin, mainTs, root } from "../helpers/cli.ts"

const CI = process.env.CI === "true"
const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3"
// No __pycache__ beside the check script: tests write only to temporary folders. One retry per
// index (pip's default 5 back off for ~8 s on every package when one index is unreachable).
const env: Record<string, string | undefined> = { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PIP_DISABLE_PIP_VERSION_CHECK: "1", PIP_RETRIES: process.env.PIP_RETRIES ?? "1" }
delete env.RAGEN_ENV_URL
delete env.RAGEN_BENCH

/** Why the package cannot be tried on this machine (undefined: it can), or a failure under CI. */
const skipReason = (why: string): string => {
  if (CI) throw new Error(`${why}: .ci/run must apt-get install python3 python3-venv and pip must reach its index`)
  console.log(`skipping the Python package test: ${why}`)
  return why
}

/** pip failed because the machine cannot fetch packages (no index, no network), not because of the package. */
const INDEX_MISSING = /(No matching distribution found for|Could not find a version that satisfies the requirement) (gymnasium|numpy|hatchling)[^\n]*/i

const install = (dir: string): string | undefined => {
  const venvPython = join(dir, "venv", "bin", "python")
  const venv = spawnSync(PYTHON, ["-m", "venv", join(dir, "venv")], { encoding: "utf8", timeout: 120_000, env })
  if (venv.error) return skipReason(`${PYTHON} is missing (apt-get install -y python3 python3-venv)`)
  if (venv.status !== 0) return skipReason(`${PYTHON} -m venv failed (apt-get install -y python3-venv): ${(venv.stderr || venv.stdout).trim().split("\n").slice(-2).join(" ")}`)
  const pip = spawnSync(venvPython, ["-m", "pip", "install", join(root, "clients", "python")], { cwd: dir, encoding: "utf8", timeout: 420_000, env })
  const out = `${pip.stdout}\n${pip.stderr}`
  const missing = pip.status !== 0 ? INDEX_MISSING.exec(out) : null
  if (missing) return skipReason(`pip cannot fetch packages here: ${missing[0].trim()}`)
  if (pip.status !== 0) throw new Error(`pip install ./clients/python failed (${pip.status ?? pip.signal}):\n${out.slice(-4000)}`)
  return undefined
}

const serve = async (): Promise<{ url: string; stop: () => void }> => {
  const child = spawn(bunBin, [mainTs, "env", "serve", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill("SIGTERM")
      reject(new Error(`no URL printed: ${out}`))
    }, 60_000)
    child.stdout.on("data", (d) => {
      out += String(d)
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) {
        clearTimeout(t)
        resolve(m[1]!)
      }
    })
  })
  return { url, stop: () => child.kill("SIGTERM") }
}

describe("Python package (pip install ./clients/python)", () => {
  test("fresh venv: check_env, vector envs, fresh unseeded instances, the trainer's <answer> parse and penalty", async () => {
    // The venv (numpy, gymnasium) lives in a temporary folder, removed here: slow to delete, so not in a hook.
    const dir = mkdtempSync(join(tmpdir(), "rb-pyenv-"))
    let server: { url: string; stop: () => void } | undefined
    try {
      const skipped = install(dir)
      if (skipped) return // reason printed above
      server = await serve()
      const stdioCommand = `'${bunBin}' '${mainTs}'`
      const r = spawnSync(join(dir, "venv", "bin", "python"), [join(root, "test", "envs", "python-package-check.py"), server.url, stdioCommand], { cwd: dir, encoding: "utf8", timeout: 240_000, env })
      if (r.status !== 0) throw new Error(`python-package-check.py failed (${r.status ?? r.signal}):\n${r.stderr.slice(-4000)}`)
      const got = JSON.parse(r.stdout)
      // Every env of the registry is ragen/<Name>-v<N>: the package's table is the server's list.
      expect(got.table).toEqual(got.served)
      expect(got.registered).toEqual(Object.keys(got.served).sort())
      expect(got.table["ragen/Sokoban-v1"]).toBe("envs/sokoban-v1")
      expect(got.check_env_warnings).toEqual([])
      // The trainer's parse: "<answer>Up</answer>" and "<think>…</think><answer>…</answer>" reach the env; a bare "Up" costs the penalty.
      expect(got.format_penalty).toBe(-0.1)
      expect(got.answer_up).toMatchObject({ formatValid: true, valid: true })
      expect(got.think_answer).toMatchObject({ formatValid: true, valid: true })
      expect(got.bare).toEqual({ reward: -0.1, formatValid: false, note: true })
      expect(got.reset_info).toEqual(expect.arrayContaining(["actionBudget", "env", "formatPenalty", "instructions", "maxTurns", "seed"]))
      // Unseeded resets: fresh instances, reproducible after a seeded one.
      expect(got.unseeded_distinct).toBe(5)
      expect(got.unseeded_reproducible).toBe(true)
      expect(got.fresh_unseeded_distinct).toBeGreaterThanOrEqual(4)
      // Vector envs: 3 Sokobans for 7 steps (each ends at its 5 turns and resets), 2 async ones.
      expect(got.sync_vector).toMatchObject({ n: 3, kinds: ["str"], ends: 3 })
      expect(got.async_vector).toMatchObject({ n: 2, kinds: ["str"] })
      expect(got.unknown_env[0]).toContain('unknown env "frozenlak"')
      expect(got.unknown_env[1]).toBe(404)
      expect(got.bad_option).toEqual([expect.stringContaining("did you mean size?"), 400])
      expect(got.no_server[0]).toContain("RAGEN_ENV_URL")
      expect(got.stdio_same_as_http).toBe(true)
    } finally {
      server?.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 900_000)
})
