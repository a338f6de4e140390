"""Run by test/envs/python-client.test.ts in a fresh venv with `pip install ./clients/python`:
python python-package-check.py URL STDIO_COMMAND → one JSON object of findings on stdout."""

import json
import os
import sys
import warnings

url, stdio_command = sys.argv[1], sys.argv[2]
os.environ.pop("RAGEN_ENV_URL", None)
os.environ.pop("RAGEN_BENCH", None)

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

import ragen_env  # noqa: E402
from ragen_env import RagenEnv, RagenEnvError  # noqa: E402

out = {}

# Every env the server lists is registered as ragen/<Name>-v<N>, and nothing else.
served = ragen_env.list_envs(url)
out["served"] = {ragen_env.gym_id(e["id"], e["description"]): e["id"] for e in served}
out["table"] = dict(ragen_env.ENVS)
out["registered"] = sorted(k for k in gymnasium.registry if k.startswith("ragen/"))

# Gymnasium's checker, on the env gymnasium.make builds (unwrapped, as the checker recommends).
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    env = gymnasium.make("ragen/Sokoban-v1", url=url)
    check_env(env.unwrapped)
    env.close()
out["check_env_warnings"] = [str(w.message) for w in caught]

# The trainer's parse and penalty on Sokoban.
env = gymnasium.make("ragen/Sokoban-v1", url=url)
obs, info = env.reset(seed=3)
out["reset_info"] = sorted(info)
out["format_penalty"] = info["formatPenalty"]
_, r_answer, _, _, i_answer = env.step("<answer>Up</answer>")
out["answer_up"] = {"reward": r_answer, "formatValid": i_answer["formatValid"], "valid": i_answer["valid"]}
_, r_think, _, _, i_think = env.step("<think>the box is above me</think> <answer>Down</answer>")
out["think_answer"] = {"reward": r_think, "formatValid": i_think["formatValid"], "valid": i_think["valid"]}
o_bare, r_bare, _, _, i_bare = env.step("Up")
out["bare"] = {"reward": r_bare, "formatValid": i_bare["formatValid"], "note": o_bare.startswith("invalid format")}
env.close()

# Unseeded resets draw fresh instances from np_random; a seeded reset makes the draws reproducible.
def draws(seed, n=5):
    e = gymnasium.make("ragen/Sokoban-v1", url=url)
    e.reset(seed=seed)
    got = [e.reset()[0] for _ in range(n)]
    e.close()
    return got

first, again = draws(7), draws(7)
out["unseeded_distinct"] = len(set(first))
out["unseeded_reproducible"] = first == again
e = gymnasium.make("ragen/Sokoban-v1", url=url)
out["fresh_unseeded_distinct"] = len({e.reset()[0] for _ in range(5)})
e.close()

# Vector envs: the spaces compare equal; a few steps through an autoreset.
def run_vector(make_vec, n, steps):
    envs = make_vec([lambda: gymnasium.make("ragen/Sokoban-v1", url=url) for _ in range(n)])
    obs, _ = envs.reset(seed=0)
    kinds = {type(o).__name__ for o in obs}
    ends = 0
    for t in range(steps):
        actions = tuple(["<answer>Up</answer>", "<answer>Left</answer>", "not an answer"][k % 3] for k in range(n))
        obs, rew, term, trunc, info = envs.step(actions)
        kinds |= {type(o).__name__ for o in obs}
        ends += int(sum(term) + sum(trunc))
    envs.close()
    return {"n": len(obs), "kinds": sorted(kinds), "rewards": [float(x) for x in rew], "ends": ends}

out["sync_vector"] = run_vector(gymnasium.vector.SyncVectorEnv, 3, 7)
out["async_vector"] = run_vector(gymnasium.vector.AsyncVectorEnv, 2, 3)

# Refusals carry the server's reason and status.
def error_of(f):
    try:
        f()
        return None
    except RagenEnvError as err:
        return [str(err), err.status]

out["unknown_env"] = error_of(lambda: RagenEnv("frozenlak", url=url).reset())
out["bad_option"] = error_of(lambda: gymnasium.make("ragen/FrozenLake-v1", url=url, options={"sizee": 4}).reset())

# No url and no RAGEN_ENV_URL: without a ragen-bench command, an error that names RAGEN_ENV_URL ...
path = os.environ.get("PATH", "")
os.environ["PATH"] = "/nonexistent"
out["no_server"] = error_of(lambda: gymnasium.make("ragen/Countdown-v1"))
os.environ["PATH"] = path
# ... and with one (RAGEN_BENCH), the package starts `env serve --stdio` itself: the same instance as over HTTP.
os.environ["RAGEN_BENCH"] = stdio_command
e = gymnasium.make("ragen/Countdown-v1")
stdio_obs, _ = e.reset(seed=3)
stdio_step = e.step("<answer>1 + 2</answer>")
e.close()
h = gymnasium.make("ragen/Countdown-v1", url=url)
http_obs, _ = h.reset(seed=3)
http_step = h.step("<answer>1 + 2</answer>")
h.close()
out["stdio_same_as_http"] = stdio_obs == http_obs and stdio_step == http_step
print(json.dumps(out))
