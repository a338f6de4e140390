"""Gymnasium ids for the server's envs: `ragen/<Name>-v<N>` for the env `<namespace>/<name>-v<N>`,
where Name is how the env's description names it ("Sokoban: push the box ..." → Sokoban).

ENVS lists the built-in envs, registered on import without asking a server;
test/envs/python-client.test.ts checks it against the server's list (what `ragen-bench list`
shows). `register_envs(url)` adds the envs a server has beyond these (plugin envs).
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional

import gymnasium

from .client import list_envs

ENTRY_POINT = "ragen_env.env:RagenEnv"

ENVS: Dict[str, str] = {
    "ragen/Sokoban-v1": "envs/sokoban-v1",
    "ragen/FrozenLake-v1": "envs/frozenlake-v1",
    "ragen/Countdown-v1": "envs/countdown-v1",
    "ragen/MetaMathQA-v1": "envs/metamathqa-v1",
    "ragen/MetaMathQA-v2": "envs/metamathqa-v2",
    "ragen/SearchQA-v1": "envs/searchqa-v1",
    "ragen/WebShop-v1": "envs/webshop-v1",
    "ragen/WebShop-v2": "envs/webshop-v2",
}

_ID = re.compile(r"^(?:(?P<ns>[^/]+)/)?(?P<name>.+?)-v(?P<version>\d+)$")


def gym_id(env_id: str, description: str = "") -> str:
    """`ragen/<Name>-v<N>` for a server env id; Name is the description's lead word when it spells
    the env's name ("FrozenLake: ..." for frozenlake-v1), else the name itself."""
    m = _ID.match(env_id)
    if not m:
        raise ValueError(f"not a versioned env id: {env_id!r} (expected namespace/name-vN)")
    name = m.group("name")
    lead = description.split(":", 1)[0].strip() if ":" in description else ""
    if lead.lower() == name.lower() and re.fullmatch(r"[A-Za-z][\w.]*", lead):
        name = lead
    return f"ragen/{name}-v{m.group('version')}"


def _register(gid: str, env_id: str) -> bool:
    if gid in gymnasium.registry:
        return False
    gymnasium.register(id=gid, entry_point=ENTRY_POINT, kwargs={"env": env_id})
    return True


def register_builtin() -> None:
    for gid, env_id in ENVS.items():
        _register(gid, env_id)


def register_envs(url: Optional[str] = None, timeout: float = 30.0) -> List[str]:
    """Register every env the server at `url` (or $RAGEN_ENV_URL, or a stdio child) lists; returns
    the Gymnasium ids. A name another namespace already took is registered as ragen/<ns>.<Name>-vN."""
    ids = []
    for e in list_envs(url, timeout):
        gid = gym_id(e["id"], e.get("description", ""))
        taken = gymnasium.registry.get(gid)
        if taken is not None and taken.kwargs.get("env") != e["id"]:
            ns = e["id"].split("/", 1)[0]
            gid = gid.replace("ragen/", f"ragen/{ns}.", 1)
        _register(gid, e["id"])
        ids.append(gid)
    return ids
