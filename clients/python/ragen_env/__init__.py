"""ragen_env: Gymnasium envs for every env of a ragen-bench env server (docs/env-server.md).

    import gymnasium, ragen_env
    env = gymnasium.make("ragen/Sokoban-v1", url="http://127.0.0.1:8765")  # url: default $RAGEN_ENV_URL
    obs, info = env.reset(seed=3)
    obs, reward, terminated, truncated, info = env.step("<think>...</think><answer>Up</answer>")

Importing the package registers the built-in envs as ragen/<Name>-v<N> (ENVS);
`register_envs(url)` adds a server's plugin envs. Without a url or RAGEN_ENV_URL, an env starts
`ragen-bench env serve --stdio` itself (RAGEN_BENCH names the command; default ragen-bench on PATH).
"""

from .client import COMMAND_VAR, ENV_URL_VAR, RagenEnvError, connect, list_envs
from .env import RagenEnv
from .registry import ENVS, gym_id, register_envs
from .registry import register_builtin as _register_builtin
from .spaces import MAX_TEXT, TextSpace

__version__ = "0.1.0"
__all__ = ["COMMAND_VAR", "ENV_URL_VAR", "ENVS", "MAX_TEXT", "RagenEnv", "RagenEnvError", "TextSpace", "connect", "gym_id", "list_envs", "register_envs"]

_register_builtin()
