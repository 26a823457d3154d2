"""Helper interpreters: Python processes in a kernel's environment that may import freely.

The checker never imports into the user's kernel. When a cell is the first to import a
library, the kernel hands the cell off (`probe/interpreter/handoff.py`) and one of these
processes, started with the kernel's own interpreter, imports it and walks the cell over
the handed-off shadows. A helper is started on first need, serves every kernel that runs
the same interpreter, keeps what it imported for the next cell, and exits when idle.

It talks JSON lines over its stdin and stdout (what libraries print goes to its stderr,
which is discarded); every request has a timeout; a helper that dies is started again on the
next request, and one that keeps dying is given up for that interpreter.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

import msgspec

from crane_server.errors import HelperError
from crane_server.kernels.probe_transport import (
    PROBE_KEY,
    bootstrap_source,
    probe_sources,
    probe_version,
)
from crane_server.protocol.handoff import Handoff

log = logging.getLogger(__name__)

# Runs in the helper (`python -I -c`): the probe is installed from stdin's first line, then
# each line is one request. fd 1 is kept for replies only.
_HELPER_MAIN = r"""
import json, os, sys
_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr
_first = json.loads(sys.stdin.readline())
exec(_first["bootstrap"], {"__builtins__": __builtins__, "KEY": _first["key"],
     "VERSION": _first["version"], "SOURCES": [tuple(s) for s in _first["sources"]]})
_entry = sys.modules[_first["key"]].entry
_out.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
_out.flush()
for _line in sys.stdin:
    try:
        _msg = json.loads(_line)
        _result = _entry.helper_walk(_msg["request"])
    except Exception as _exc:
        _msg = _msg if isinstance(_msg, dict) else {}
        _result = {"error": "%s: %s" % (type(_exc).__name__, _exc)}
    _out.write(json.dumps({"id": _msg.get("id"), "result": _result}, default=str) + "\n")
    _out.flush()
"""

# A reply line may carry many findings; requests carry pickles of up to a few MB.
_LINE_LIMIT = 64 * 1024 * 1024
START_TIMEOUT_S = 20.0
IDLE_EXIT_S = 300.0
# A walk has a CPU budget of its own; a request running this long means the helper is stuck.
STUCK_S = 120.0
MAX_QUICK_DEATHS = 3
# The helper never needs the user's secrets, and it never touches a GPU.
_SECRET_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
_HELPER_ENV = {
    "MPLBACKEND": "Agg",
    "CUDA_VISIBLE_DEVICES": "",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "TF_CPP_MIN_LOG_LEVEL": "3",
    "PYTHONDONTWRITEBYTECODE": "1",
}


def helper_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not any(m in k.upper() for m in _SECRET_MARKERS)}
    env.update(_HELPER_ENV)
    env.update(extra or {})
    return env


class HelperInterpreter:
    """One helper process for one Python executable."""

    def __init__(self, executable: str, env: dict[str, str]) -> None:
        self.executable = executable
        self.env = env
        self.pid: int | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._started: dict[int, float] = {}
        self._next_id = 0
        self._lock = asyncio.Lock()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def start(self, timeout: float = START_TIMEOUT_S) -> None:
        try:
            self._process = await asyncio.create_subprocess_exec(
                self.executable,
                "-I",
                "-c",
                _HELPER_MAIN,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                env=self.env,
                cwd=str(Path.home()) if Path.home().is_dir() else "/",
                limit=_LINE_LIMIT,
            )
        except OSError as exc:
            raise HelperError(
                f"cannot start a helper interpreter {self.executable}: {exc}"
            ) from exc
        first = {
            "key": PROBE_KEY,
            "version": probe_version(),
            "bootstrap": bootstrap_source(),
            "sources": probe_sources(),
        }
        assert self._process.stdin is not None and self._process.stdout is not None
        try:
            self._process.stdin.write((json.dumps(first) + "\n").encode())
            await self._process.stdin.drain()
            line = await asyncio.wait_for(self._process.stdout.readline(), timeout)
            ready = json.loads(line) if line else {}
        except (OSError, ValueError, asyncio.TimeoutError) as exc:
            await self.close()
            raise HelperError(f"the helper interpreter {self.executable} did not start") from exc
        if not isinstance(ready, dict) or ready.get("ready") is not True:
            await self.close()
            raise HelperError(f"the helper interpreter {self.executable} did not start")
        self.pid = ready.get("pid") if isinstance(ready.get("pid"), int) else None
        self._reader = asyncio.create_task(self._read(), name="crane-helper-reader")

    async def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        try:
            while True:
                line = await self._process.stdout.readline()
                if not line:
                    break
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                future = self._pending.pop(message.get("id"), None)
                self._started.pop(message.get("id"), None)
                result = message.get("result")
                if future is not None and not future.done():
                    future.set_result(result if isinstance(result, dict) else {})
        except (OSError, ValueError, asyncio.LimitOverrunError) as exc:
            log.debug("helper reader stopped: %s", exc)
        finally:
            self._fail_pending(HelperError("the helper interpreter exited"))

    def _fail_pending(self, error: Exception) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()
        self._started.clear()

    def stuck(self) -> bool:
        now = time.monotonic()
        return any(now - started > STUCK_S for started in self._started.values())

    async def walk(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one hand-off; its result, or HelperError on a timeout or a dead helper."""
        if not self.running or self._process is None or self._process.stdin is None:
            raise HelperError("the helper interpreter is not running")
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._started[request_id] = time.monotonic()
        try:
            async with self._lock:
                self._process.stdin.write(
                    (json.dumps({"id": request_id, "request": request}) + "\n").encode()
                )
                await self._process.stdin.drain()
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except asyncio.TimeoutError as exc:
            # The helper goes on (a first import may take long); its late answer is dropped.
            future.add_done_callback(_drop_result)
            raise HelperError(
                f"the helper interpreter did not answer within {timeout:g} s"
            ) from exc
        except OSError as exc:
            self._pending.pop(request_id, None)
            raise HelperError(f"the helper interpreter exited: {exc}") from exc

    async def close(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(process.wait(), 5.0)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
            self._reader = None
        self._fail_pending(HelperError("the helper interpreter was stopped"))


def _drop_result(future: asyncio.Future[dict[str, Any]]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved, so asyncio does not log it


class HelperPool:
    """The helpers of one crane-server process, one per Python executable, started on need."""

    def __init__(self, *, idle_exit_s: float = IDLE_EXIT_S, enabled: bool = True) -> None:
        self.enabled = enabled
        self.idle_exit_s = idle_exit_s
        self._helpers: dict[tuple[str, str], HelperInterpreter] = {}
        self._deaths: dict[tuple[str, str], list[float]] = {}
        self._idle: dict[tuple[str, str], asyncio.TimerHandle] = {}
        self._starting = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    def usable(self, executable: Any) -> bool:
        """Can a helper run this interpreter here (a file on this machine, not given up on)?"""
        if not self.enabled or not isinstance(executable, str) or not executable:
            return False
        if not (os.path.isabs(executable) and os.access(executable, os.X_OK)):
            return False
        deaths = self._deaths.get((executable, ""), [])
        return len(deaths) < MAX_QUICK_DEATHS

    async def walk(self, handoff: Handoff, *, timeout: float) -> dict[str, Any]:
        """Walk a hand-off in the helper for its kernel's interpreter; HelperError if it cannot."""
        executable = handoff.context.executable
        if not self.usable(executable):
            raise HelperError("no helper interpreter for this kernel")
        request = msgspec.to_builtins(handoff)
        key = (executable, "")
        deadline = time.monotonic() + timeout
        helper = await self._helper(key, timeout)
        self._touch(key)
        left = max(deadline - time.monotonic(), 0.1)
        try:
            return await helper.walk(request, left)
        except HelperError:
            if not helper.running:
                self._record_death(key)
            raise

    async def _helper(self, key: tuple[str, str], timeout: float) -> HelperInterpreter:
        async with self._starting:
            helper = self._helpers.get(key)
            if helper is not None and helper.running and not helper.stuck():
                return helper
            if helper is not None:
                await helper.close()
            helper = HelperInterpreter(key[0], helper_environment())
            try:
                await helper.start(min(timeout, START_TIMEOUT_S))
            except HelperError:
                self._record_death(key)
                raise
            self._helpers[key] = helper
            return helper

    def _record_death(self, key: tuple[str, str]) -> None:
        now = time.monotonic()
        recent = [t for t in self._deaths.get(key, []) if now - t < 60.0]
        recent.append(now)
        self._deaths[key] = recent
        if len(recent) >= MAX_QUICK_DEATHS:
            log.warning("crane: the helper interpreter %s keeps failing; not used again", key[0])

    def _touch(self, key: tuple[str, str]) -> None:
        handle = self._idle.pop(key, None)
        if handle is not None:
            handle.cancel()
        loop = asyncio.get_running_loop()
        self._idle[key] = loop.call_later(self.idle_exit_s, self._retire_soon, key)

    def _retire_soon(self, key: tuple[str, str]) -> None:
        task = asyncio.ensure_future(self._retire(key))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _retire(self, key: tuple[str, str]) -> None:
        self._idle.pop(key, None)
        helper = self._helpers.pop(key, None)
        if helper is not None:
            await helper.close()

    async def __aenter__(self) -> HelperPool:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        for handle in self._idle.values():
            handle.cancel()
        self._idle.clear()
        helpers, self._helpers = list(self._helpers.values()), {}
        for helper in helpers:
            await helper.close()
