"""The kernel's side of a dry run: fork one twin, answer whether it is done, kill it.

Each function is a probe op (silent request on the kernel's main thread while it is idle).
`start_request` pauses the kernel only for the fork itself and returns at once; the twin
runs on its own, at the lowest priority, and its report waits in a pipe until
`collect_request` reads it. At most one twin lives per kernel: a new start, a kill or the
daemon's notice of a real run ends the previous one.

Each twin has a reaper in the kernel (a bare thread, not one of `threading`'s): it waits on
the twin's pidfd, reaps it the moment it exits and keeps its report, and kills it past its
deadline, so a twin whose daemon died (SIGKILL, a crash) neither outlives its budget, even
with SIGALRM caught by the cell, nor stays behind as a zombie for the user's `os.wait()`.
"""

import _thread
import os
import select
import signal
import sys
import threading
import time
import warnings
from typing import Any, Dict, List, Optional

from . import seal

# After its wall budget, a twin gets this long to be reaped before it is killed outright
# (the budget's own SIGALRM normally ends it first).
GRACE_S = 0.5
MAX_WALL_S = 30.0
MAX_CELLS = 200  # one twin runs at most this many cells in order (Run All, seen ahead)

_DEATHS: Dict[int, str] = {
    signal.SIGSYS: "the cell tried an operation the seal denies (a write, a new process, a "
    "socket or a signal outside the twin)",
    signal.SIGALRM: "the cell ran past the dry run's time budget",
    signal.SIGXCPU: "the cell ran past the dry run's CPU budget",
    signal.SIGKILL: "the twin was killed (a real run started, a newer edit, the CPU budget or "
    "the out-of-memory killer)",
    signal.SIGSEGV: "the twin crashed with SIGSEGV (a write into a page it may not change?)",
    signal.SIGBUS: "the twin crashed with SIGBUS",
}


class _Twin:
    def __init__(self, pid: int, fd: int, wall_s: float) -> None:
        self.pid = pid
        self.fd = fd
        self.started = time.monotonic()
        self.deadline = self.started + wall_s
        self.status: Optional[int] = None  # the wait status once reaped
        # With a reaper: it alone reaps the twin and reads and closes `fd`; `lock` keeps a
        # kill from reaching a pid it has just reaped (and the system may have reused).
        self.reaper = False
        self.lock = threading.Lock()
        self.ended = threading.Event()
        self.report = b""
        self.overran = False  # killed by the reaper past its deadline


_twins: Dict[int, _Twin] = {}
# How many twins this kernel has started (read by tests: opening a notebook starts none).
started_count = [0]


def _non_fork_safe_runtime() -> Optional[str]:
    """A runtime loaded in the kernel that a forked copy cannot use (or would hang on)."""
    modules = sys.modules
    if "polars" in modules:
        return "polars is loaded: its thread pool is not fork-safe"
    if "jax" in modules:
        return "jax is loaded: its runtime threads are not fork-safe"
    if "cupy" in modules:
        return "cupy is loaded (CUDA is not fork-safe)"
    torch = modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    is_initialized = getattr(cuda, "is_initialized", None)
    if callable(is_initialized) and is_initialized():
        return "CUDA is initialised in the kernel (not fork-safe)"
    context = getattr(modules.get("pyspark"), "SparkContext", None)
    if context is not None and getattr(context, "_active_spark_context", None) is not None:
        return "a Spark context is active (the JVM is reached over a socket)"
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                if "libcuda.so" in line or "libnvidia-ml" in line:
                    return "the CUDA driver is loaded in the kernel (not fork-safe)"
    except OSError:
        pass
    return None


def why_no_twin() -> Optional[str]:
    """None when a twin can start now, else the reason (kept for the hover)."""
    reason = seal.seal_support()
    if reason is not None:
        return reason
    if threading.current_thread() is not threading.main_thread():
        return "the probe is not on the kernel's main thread"
    return _non_fork_safe_runtime()


def _identity() -> Dict[str, Any]:
    """What tells the daemon whether the twin's pid means the same process on its side."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as boot:
            boot_id = boot.read().strip()
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return {}
    return {"boot_id": boot_id, "pid_namespace": namespace}


def start_request(payload: Dict[str, Any]) -> Dict[str, Any]:
    """Fork a twin that runs `payload["source"]`; the reply carries its pid and the pause."""
    reason = why_no_twin()
    if reason is not None:
        return {"declined": reason}
    _kill_all()
    wall_s = min(float(payload.get("wall_s") or 3.0), MAX_WALL_S)
    sources = payload.get("sources")
    if not isinstance(sources, list):
        sources = [payload.get("source", "")]
    request = {
        "sources": [str(source) for source in sources[:MAX_CELLS]],
        "wall_s": wall_s,
        "cpu_s": min(float(payload.get("cpu_s") or wall_s), MAX_WALL_S),
        "memory_mb": int(payload.get("memory_mb") or 0),
    }
    import random

    state = {"random": random.getstate()}
    parent = os.getpid()
    read_fd, write_fd = os.pipe()
    before = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 3.12+: "fork() in a multi-threaded process"
        pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            from . import child

            child.live(request, write_fd, parent, state)
        finally:
            os._exit(71)
    pause_ms = (time.perf_counter() - before) * 1000.0
    os.close(write_fd)
    os.set_blocking(read_fd, False)
    twin = _Twin(pid, read_fd, wall_s)
    _twins[pid] = twin
    _start_reaper(twin)
    started_count[0] += 1
    reply: Dict[str, Any] = {"pid": pid, "fork_ms": pause_ms}
    reply.update(_identity())
    return reply


def _read_report(twin: _Twin) -> bytes:
    chunks = []
    while True:
        try:
            chunk = os.read(twin.fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _reap(twin: _Twin, *, block: bool) -> bool:
    """Has the twin exited (its wait status recorded)? Never reaps any other child."""
    if twin.status is not None:
        return True
    try:
        pid, status = os.waitpid(twin.pid, 0 if block else os.WNOHANG)
    except ChildProcessError:
        twin.status = -1  # someone else (the user's own os.wait) reaped it
        return True
    if pid == 0:
        return False
    twin.status = status
    return True


def _forget(twin: _Twin) -> None:
    _twins.pop(twin.pid, None)
    if twin.reaper:
        return  # the reaper closes the report pipe, once
    try:
        os.close(twin.fd)
    except OSError:
        pass


def _outcome(twin: _Twin, data: bytes) -> Dict[str, Any]:
    """The twin's report: one entry per cell it reached, the last one's verdict on top."""
    import json

    cells: List[Dict[str, Any]] = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entry.setdefault("cell", len(cells))
            cells.append(entry)
    elapsed_ms = (time.monotonic() - twin.started) * 1000.0
    status = twin.status if twin.status is not None else -1
    last_clean = not cells or cells[-1].get("outcome") == "clean"
    if status >= 0 and os.WIFSIGNALED(status) and last_clean:
        number = os.WTERMSIG(status)
        reason = _DEATHS.get(number, "the twin ended on signal %d" % number)
        if twin.overran:
            reason = _DEATHS[signal.SIGALRM]  # killed by its reaper: the alarm did not end it
        cells.append({"cell": len(cells), "outcome": "unknown", "reason": reason, "signal": number})
    elif not cells:
        code = os.WEXITSTATUS(status) if status >= 0 and os.WIFEXITED(status) else None
        cells.append(
            {
                "cell": 0,
                "outcome": "unknown",
                "reason": "the twin ended without a report (exit status %s)" % code,
            }
        )
    report = dict(cells[-1])
    report["cells"] = cells
    report["state"] = "done"
    report["elapsed_ms"] = elapsed_ms
    return report


def collect_request(payload: Dict[str, Any]) -> Dict[str, Any]:
    """The twin's report when it has ended, else {"state": "running"} (never waits)."""
    twin = _twins.get(int(payload.get("pid") or -1))
    if twin is None:
        return {"state": "gone"}
    if not _ended(twin):
        if time.monotonic() < twin.deadline + GRACE_S:
            return {"state": "running", "elapsed_ms": (time.monotonic() - twin.started) * 1000.0}
        _kill(twin)
    data = twin.report if twin.reaper else _read_report(twin)
    _forget(twin)
    return _outcome(twin, data)


def _ended(twin: _Twin) -> bool:
    """Has the twin exited and been reaped (and its report kept, with a reaper)?"""
    return twin.ended.is_set() if twin.reaper else _reap(twin, block=False)


def _kill(twin: _Twin) -> None:
    """SIGKILL the twin and wait until it is reaped."""
    if not twin.reaper:
        _signal(twin)
        _reap(twin, block=True)
        return
    with twin.lock:
        if twin.status is None:
            _signal(twin)
    twin.ended.wait(5.0)


def _signal(twin: _Twin) -> None:
    """SIGKILL a twin not reaped yet (its pid is still its own)."""
    try:
        os.kill(twin.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _kill_all() -> int:
    killed = 0
    for twin in list(_twins.values()):
        if not _ended(twin):
            _kill(twin)
            killed += 1
        _forget(twin)
    return killed


def _start_reaper(twin: _Twin) -> None:
    """Reap the twin on a thread of its own (without one, collect and kill reap it)."""
    try:
        _thread.start_new_thread(_reap_when_done, (twin,))
    except RuntimeError:
        return  # no thread to be had: the requests reap it, as they always could
    twin.reaper = True


def _reap_when_done(twin: _Twin) -> None:
    """The reaper: wait for the twin's exit (killing it past its deadline), keep its report."""
    try:
        _wait_for_exit(twin)
        with twin.lock:
            if not _reap(twin, block=False):
                _signal(twin)  # past its deadline and grace: the budget did not end it
                twin.overran = True
                _reap(twin, block=True)
        twin.report = _read_report(twin)
        os.close(twin.fd)
    except Exception:
        pass
    finally:
        twin.ended.set()


def _wait_for_exit(twin: _Twin) -> None:
    """Return when the twin has exited or its deadline and grace have passed."""
    try:
        pidfd: Optional[int] = os.pidfd_open(twin.pid)
    except (AttributeError, OSError):
        pidfd = None  # an old kernel or Python: poll
    try:
        while True:
            with twin.lock:
                if _reap(twin, block=False):
                    return
            left = twin.deadline + GRACE_S - time.monotonic()
            if left <= 0:
                return
            if pidfd is not None:
                select.select([pidfd], [], [], left)
            else:
                time.sleep(min(left, 0.05))
    finally:
        if pidfd is not None:
            os.close(pidfd)


def kill_request(payload: Dict[str, Any]) -> Dict[str, Any]:
    """Kill and reap every twin of this kernel."""
    return {"killed": _kill_all()}
