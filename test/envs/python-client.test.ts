// clients/python/ragen_env.py, the Gymnasium-style client, against a real `ragen-bench env serve`
// on 127.0.0.1, run by Debian's python3 (standard library only). Skips with a reason when
// /usr/bin/python3 is missing outside CI; under CI=true that is a failure.
import { describe, expect, test } from "bun:test"
import { spawn, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { bunBin, mainTs, root } from "../helpers/cli.ts"

const PYTHON = "/usr/bin/python3"
const available = existsSync(PYTHON)
if (!available) {
  if (process.env.CI === "true") throw new Error(`${PYTHON} is missing: .ci/run must apt-get install python3`)
  console.log(`skipping the Python client test: ${PYTHON} is missing (apt-get install -y python3)`)
}

// The checks, in Python: the Gymnasium API shapes, same seed ⇒ same observation, an episode that
// ends (terminated or truncated by the action budget), a refused request as RagenEnvError.
const script = `
import json, sys
sys.path.insert(0, sys.argv[2])
from ragen_env import RagenEnv, RagenEnvError, list_envs
url = sys.argv[1]
out = {"envs": [e["id"] for e in list_envs(url)]}
env = RagenEnv("frozenlake", url=url, action_budget=5)
obs, info = env.reset(seed=3)
out["obs_is_text"] = isinstance(obs, str) and env.observation_space.contains(obs)
out["info_keys"] = sorted(info)
again, _ = env.reset(seed=3)
out["same_seed_same_obs"] = again == obs
steps, ended = [], False
while not ended and len(steps) < 50:
    r = env.step("<answer>Left</answer>")
    steps.append([type(x).__name__ for x in r])
    ended = r[2] or r[3]
    last = r
out["step_types"] = steps[0]
out["ended"] = ended
out["steps"] = len(steps)
out["truncated_or_terminated"] = [last[2], last[3]]
env.close()
try:
    RagenEnv("frozenlak", url=url).reset()
    out["error"] = None
except RagenEnvError as e:
    out["error"] = [str(e), e.status]
try:
    import gymnasium
    out["gymnasium_env"] = isinstance(env, gymnasium.Env)
except ImportError:
    out["gymnasium_env"] = None
print(json.dumps(out))
`

describe("Python client (clients/python/ragen_env.py)", () => {
  test("reset/step/close against a real env server", async () => {
    if (!available) return // reason printed above
    const child = spawn(bunBin, [mainTs, "env", "serve", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (d) => (out += String(d)))
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 30_000)
        child.stdout.on("data", () => {
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
          if (m) {
            clearTimeout(t)
            resolve(m[1]!)
          }
        })
      })
      // no __pycache__ beside the client: tests write only to temporary folders
      const r = spawnSync(PYTHON, ["-c", script, url, join(root, "clients", "python")], { encoding: "utf8", timeout: 60_000, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } })
      expect(r.stderr).toBe("")
      const got = JSON.parse(r.stdout)
      expect(got.envs).toContain("envs/frozenlake-v1")
      expect(got.obs_is_text).toBe(true)
      expect(got.info_keys).toEqual(expect.arrayContaining(["actionBudget", "env", "instructions", "maxTurns"]))
      expect(got.same_seed_same_obs).toBe(true)
      expect(got.step_types).toEqual(["str", "float", "bool", "bool", "dict"])
      expect(got.ended).toBe(true)
      expect(got.steps).toBeLessThanOrEqual(5) // the action budget ends it at the latest
      expect(got.error[0]).toContain('unknown env "frozenlak"')
      expect(got.error[1]).toBe(404)
    } finally {
      child.kill("SIGTERM")
    }
  }, 90_000)
})
