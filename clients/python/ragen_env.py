"""ragen_env: a Gymnasium-style client for `ragen-bench env serve` (docs/env-server.md).

One file, Python standard library only; when gymnasium is importable, RagenEnv subclasses
gymnasium.Env and its spaces are gymnasium spaces, so wrappers and env checkers accept it.

    from ragen_env import RagenEnv
    env = RagenEnv("sokoban", url="http://127.0.0.1:8765")
    obs, info = env.reset(seed=3)          # info: instructions, maxTurns, actionBudget, ...
    obs, reward, terminated, truncated, info = env.step("<answer>Up</answer>")
    env.close()

Observations and actions are text (the agent's whole reply is the action); terminated means the
task ended, truncated that the action budget ran out (Gymnasium's distinction).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

try:  # optional: without gymnasium the class has the same methods and attributes
    import gymnasium

    _EnvBase: Any = gymnasium.Env
    _SpaceBase: Any = gymnasium.spaces.Space
except ImportError:  # pragma: no cover - depends on the machine
    gymnasium = None
    _EnvBase = object
    _SpaceBase = object

DEFAULT_URL = "http://127.0.0.1:8765"
# The server refuses bodies over 1 MiB: no observation or action is longer.
MAX_TEXT = 1 << 20


class RagenEnvError(RuntimeError):
    """The server refused a request (its one-line reason) or could not be reached."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class TextSpace(_SpaceBase):
    """Any string of at most max_length characters (Unicode included): what the envs read and write."""

    def __init__(self, max_length: int = MAX_TEXT, seed: int | None = None):
        if gymnasium is not None:
            super().__init__(shape=None, dtype=None, seed=seed)
        self.max_length = max_length

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        return ""

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"TextSpace(max_length={self.max_length})"


def _request(url: str, method: str, path: str, body: dict | None, timeout: float) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url.rstrip("/") + path, data=data, method=method, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        try:
            message = json.load(e).get("error", str(e))
        except (ValueError, AttributeError):
            message = str(e)
        raise RagenEnvError(f"{method} {path}: {message}", e.code) from None
    except urllib.error.URLError as e:
        raise RagenEnvError(f"cannot reach the env server at {url} ({e.reason}); start it with: ragen-bench env serve") from None


def list_envs(url: str = DEFAULT_URL, timeout: float = 30.0) -> list[dict]:
    """The server's envs: [{"id": ..., "description": ...}]."""
    return _request(url, "GET", "/envs", None, timeout)["envs"]


class RagenEnv(_EnvBase):
    """One session of a ragen-bench env served over HTTP, with Gymnasium's reset/step/close."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, env: str, url: str = DEFAULT_URL, options: dict | None = None, action_budget: int | None = None, render_mode: str | None = None, timeout: float = 30.0):
        self.env_id = env
        self.url = url
        self.env_options = dict(options or {})
        self.action_budget = action_budget
        self.render_mode = render_mode
        self.timeout = timeout
        self.observation_space = TextSpace()
        self.action_space = TextSpace()
        self.session: str | None = None
        self.spec_info: dict = {}
        self._last_obs = ""

    def _call(self, method: str, path: str, body: dict | None = None) -> dict:
        return _request(self.url, method, path, body, self.timeout)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        """Start an episode (the env's instance for `seed`); `options` replaces the env's options."""
        if options is not None and dict(options) != self.env_options:
            self.close()
            self.env_options = dict(options)
        if self.session is None:
            body: dict = {"env": self.env_id, "options": self.env_options}
            if seed is not None:
                body["seed"] = seed
            if self.action_budget is not None:
                body["actionBudget"] = self.action_budget
            r = self._call("POST", "/create", body)
            self.session = r["id"]
            self.spec_info = {k: v for k, v in r.items() if k not in ("id", "observation")}
        else:
            r = self._call("POST", "/reset", {"id": self.session} if seed is None else {"id": self.session, "seed": seed})
        self._last_obs = r["observation"]
        return self._last_obs, dict(self.spec_info)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        """One action (the agent's reply text) → (observation, reward, terminated, truncated, info)."""
        if self.session is None:
            raise RagenEnvError("step before reset: call env.reset() first")
        if not isinstance(action, str):
            raise TypeError(f"an action is text (str), got {type(action).__name__}")
        r = self._call("POST", "/step", {"id": self.session, "action": action})
        self._last_obs = r["observation"]
        return r["observation"], float(r["reward"]), bool(r["terminated"]), bool(r["truncated"]), dict(r.get("info") or {})

    def render(self) -> str | None:
        return self._last_obs if self.render_mode == "ansi" else None

    def close(self) -> None:
        if self.session is not None:
            try:
                self._call("DELETE", f"/session/{self.session}")
            except RagenEnvError:
                pass  # expired or already gone: nothing to release
            self.session = None
