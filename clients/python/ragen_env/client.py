"""Talking to a ragen-bench env server (docs/env-server.md): over HTTP, or to a
`ragen-bench env serve --stdio` child this package starts itself.

Which one: the `url` argument, else the RAGEN_ENV_URL environment variable, else a stdio child
running the command in RAGEN_BENCH (e.g. "npx ragen-bench") or `ragen-bench` found on PATH.
Every request is one of the server's ops (create, step, reset, envs, close) with its JSON body;
a refusal raises RagenEnvError with the server's one-line reason and status.
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import shlex
import shutil
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

ENV_URL_VAR = "RAGEN_ENV_URL"
COMMAND_VAR = "RAGEN_BENCH"


class RagenEnvError(RuntimeError):
    """The server refused a request (its one-line reason and status), or no server could be reached or started."""

    def __init__(self, message: str, status: Optional[int] = None):
        super().__init__(message)
        self.status = status


class HttpTransport:
    """`ragen-bench env serve` over HTTP (POST /create, /step, /reset; GET /envs; DELETE /session/:id)."""

    def __init__(self, url: str, timeout: float = 30.0):
        self.url = url.rstrip("/")
        self.timeout = timeout

    def request(self, op: str, body: Dict[str, Any]) -> Dict[str, Any]:
        method, path, data = "POST", "/" + op, body
        if op == "envs":
            method, path, data = "GET", "/envs", None
        elif op == "close":
            method, path, data = "DELETE", "/session/" + urllib.parse.quote(str(body["id"]), safe=""), None
        raw = None if data is None else json.dumps(data).encode()
        req = urllib.request.Request(self.url + path, data=raw, method=method, headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            try:
                message = json.load(e).get("error", str(e))
            except (ValueError, AttributeError):
                message = str(e)
            raise RagenEnvError(f"{method} {path}: {message}", e.code) from None
        except urllib.error.URLError as e:
            raise RagenEnvError(f"cannot reach the env server at {self.url} ({e.reason}); start one with `ragen-bench env serve` (it prints its URL)") from None

    def __repr__(self) -> str:
        return f"HttpTransport({self.url!r})"


class StdioTransport:
    """A `ragen-bench env serve --stdio` child: one JSON line per request, one per reply."""

    def __init__(self, command: List[str]):
        self.command = list(command)
        self.pid = os.getpid()  # a forked child (AsyncVectorEnv) must not share the parent's pipes
        self.lock = threading.Lock()
        self.stderr_tail: collections.deque = collections.deque(maxlen=20)
        argv = self.command + ["env", "serve", "--stdio"]
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as e:
            raise RagenEnvError(f"cannot start the env server `{shlex.join(argv)}`: {e}; set {ENV_URL_VAR} to a running server's URL instead") from None
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr_tail.append(line.decode("utf-8", "replace").rstrip())

    @property
    def alive(self) -> bool:
        return self.pid == os.getpid() and self.proc.poll() is None

    def request(self, op: str, body: Dict[str, Any]) -> Dict[str, Any]:
        with self.lock:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            try:
                self.proc.stdin.write((json.dumps({**body, "op": op}) + "\n").encode())
                self.proc.stdin.flush()
                line = self.proc.stdout.readline()
            except (BrokenPipeError, OSError):
                line = b""
            if not line:
                self.proc.wait(timeout=10)
                tail = " | ".join(self.stderr_tail) or "no message"
                raise RagenEnvError(f"the env server `{shlex.join(self.command)} env serve --stdio` exited ({self.proc.returncode}): {tail}")
        reply = json.loads(line)
        status = reply.pop("status", 200)
        if status != 200:
            raise RagenEnvError(f"{op}: {reply.get('error', reply)}", status)
        return reply

    def close(self) -> None:
        if self.pid != os.getpid() or self.proc.poll() is not None:
            return
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # the server stops when its input ends
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()

    def __repr__(self) -> str:
        return f"StdioTransport({shlex.join(self.command)!r})"


_stdio: Dict[Tuple[str, ...], StdioTransport] = {}
_stdio_lock = threading.Lock()


def _close_stdio() -> None:
    for t in list(_stdio.values()):
        t.close()


atexit.register(_close_stdio)


def server_command() -> List[str]:
    """The command that starts ragen-bench: $RAGEN_BENCH (split as a shell would), else `ragen-bench` on PATH."""
    cmd = os.environ.get(COMMAND_VAR, "").strip()
    if cmd:
        return shlex.split(cmd)
    exe = shutil.which("ragen-bench")
    if exe:
        return [exe]
    raise RagenEnvError(
        f"no env server: pass url=... or set {ENV_URL_VAR} to a running server's URL "
        f"(start one with `ragen-bench env serve`; it prints http://127.0.0.1:8765), "
        f"or put ragen-bench on PATH (or set {COMMAND_VAR}, e.g. RAGEN_BENCH='npx ragen-bench') so that this package starts `ragen-bench env serve --stdio` itself"
    )


def connect(url: Optional[str] = None, timeout: float = 30.0):
    """A transport: HTTP to `url` or $RAGEN_ENV_URL, else the process's shared stdio server (started on first use)."""
    url = url or os.environ.get(ENV_URL_VAR) or None
    if url:
        return HttpTransport(url, timeout)
    command = tuple(server_command())
    with _stdio_lock:
        t = _stdio.get(command)
        if t is None or not t.alive:
            t = _stdio[command] = StdioTransport(list(command))
        return t


def list_envs(url: Optional[str] = None, timeout: float = 30.0) -> List[Dict[str, str]]:
    """The server's envs: [{"id": "envs/sokoban-v1", "description": "Sokoban: ..."}, ...]."""
    return connect(url, timeout).request("envs", {})["envs"]
