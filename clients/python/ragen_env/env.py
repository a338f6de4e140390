"""RagenEnv: one env of a ragen-bench env server as a gymnasium.Env (docs/env-server.md).

Observations and actions are text: the action is the agent's whole reply, which the server
parses as ragen-bench's trainer does ("<think> ... </think> <answer> Up </answer>", or
"<answer> Up </answer>"); a reply that does not parse, or whose action the env rejects, costs
the format penalty (-0.1 by default) and the next observation says so. `terminated` means the
task ended; `truncated` that the action budget or the turn limit (the trainer's maxTurns) ran out.

Seeds: `reset(seed=s)` plays the env's instance s (the trainer's seed s) and seeds the env's
`np_random`; `reset()` plays an instance drawn from `np_random`, so unseeded resets give fresh
instances and a seeded reset followed by unseeded ones repeats the same sequence.
"""

from __future__ import annotations

import numbers
from typing import Any, Dict, Optional, Tuple

import gymnasium

from .client import RagenEnvError, connect
from .spaces import TextSpace

# The server's seeds are 32-bit.
SEED_LIMIT = 2**32


class RagenEnv(gymnasium.Env):
    """One session of a served env. `env` is the server's env id ("sokoban", "envs/sokoban-v1").

    options: the env's options (strictly decoded by the server; an unknown key is named).
    action_budget, max_turns, format_penalty: the time limit, turn limit and penalty the trainer
    uses (defaults: the env's budget and turns, -0.1).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        env: str,
        url: Optional[str] = None,
        options: Optional[Dict[str, Any]] = None,
        action_budget: Optional[int] = None,
        max_turns: Optional[int] = None,
        format_penalty: Optional[float] = None,
        render_mode: Optional[str] = None,
        timeout: float = 30.0,
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.env_id = env
        self.env_options = dict(options or {})
        self.action_budget = action_budget
        self.max_turns = max_turns
        self.format_penalty = format_penalty
        self.render_mode = render_mode
        self.observation_space = TextSpace()
        self.action_space = TextSpace()
        self._server = connect(url, timeout)
        self.session: Optional[str] = None
        self.spec_info: Dict[str, Any] = {}
        self._last_obs = ""

    def _create_body(self, seed: int) -> Dict[str, Any]:
        body: Dict[str, Any] = {"env": self.env_id, "seed": seed, "options": self.env_options}
        if self.action_budget is not None:
            body["actionBudget"] = self.action_budget
        if self.max_turns is not None:
            body["maxTurns"] = self.max_turns
        if self.format_penalty is not None:
            body["formatPenalty"] = self.format_penalty
        return body

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[str, Dict[str, Any]]:
        """Start an episode: instance `seed`, else one drawn from np_random. `options` replaces the env's options."""
        if seed is not None:
            if not (isinstance(seed, numbers.Integral) and 0 <= seed < SEED_LIMIT):
                raise ValueError(f"seed must be an int in [0, 2**32), got {seed!r}")
            seed = int(seed)
        super().reset(seed=seed)
        instance = seed if seed is not None else int(self.np_random.integers(0, SEED_LIMIT))
        if options is not None and dict(options) != self.env_options:
            self._close_session()
            self.env_options = dict(options)
        if self.session is None:
            r = self._server.request("create", self._create_body(instance))
            self.session = r["id"]
            self.spec_info = {k: v for k, v in r.items() if k not in ("id", "observation")}
        else:
            r = self._server.request("reset", {"id": self.session, "seed": instance})
        self._last_obs = r["observation"]
        return self._last_obs, {**self.spec_info, "seed": instance}

    def step(self, action: str) -> Tuple[str, float, bool, bool, Dict[str, Any]]:
        """One reply → (observation, reward, terminated, truncated, info); info.formatValid says whether it parsed."""
        if self.session is None:
            raise RagenEnvError("step before reset: call env.reset() first")
        if not isinstance(action, str):
            raise TypeError(f"an action is the agent's reply text (str), got {type(action).__name__}")
        r = self._server.request("step", {"id": self.session, "action": action})
        self._last_obs = r["observation"]
        return self._last_obs, float(r["reward"]), bool(r["terminated"]), bool(r["truncated"]), dict(r.get("info") or {})

    def render(self) -> Optional[str]:
        return self._last_obs if self.render_mode == "ansi" else None

    def _close_session(self) -> None:
        if self.session is not None:
            session, self.session = self.session, None
            try:
                self._server.request("close", {"id": session})
            except RagenEnvError:
                pass  # expired, or the server is gone: nothing to release

    def close(self) -> None:
        """End the server session (the shared stdio server, if any, stays for other envs)."""
        self._close_session()
        super().close()
