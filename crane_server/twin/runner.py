"""Start a twin in an idle kernel, wait for its report, kill it when a real run starts.

A kernel on this machine (same boot, same pid namespace) is watched through a pidfd: the
daemon learns the instant the twin exits (no polling) and kills it with one syscall the
moment IOPub shows a user's execute_input. A remote kernel's twin is polled with a backoff
and ends by its own budget. Results are cached by (kernel process, cell text, execution
count); a newer request for the same kernel ends the twin of the older one.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
import weakref
from typing import Any

import msgspec

from crane_server.errors import CraneError
from crane_server.kernels.events import (
    ExecutionRequested,
    ExecutionStarted,
    KernelDied,
    KernelEvent,
)
from crane_server.kernels.session import KernelSession
from crane_server.protocol.dry_run import DryRun
from crane_server.twin.verdict import read_cells

log = logging.getLogger(__name__)

CACHE_SIZE = 256


class DryRunOptions(msgspec.Struct, kw_only=True):
    wall_s: float = 3.0  # the twin's wall-clock budget (its CPU budget is the same)
    memory_mb: int = 2048  # address space the twin may add to the kernel's
    timeout: float = 5.0  # for each probe request that starts or collects a twin


class _Watch:
    """One live twin: its pid, a pidfd when the kernel is on this machine, why it ended."""

    def __init__(self, pid: int, pidfd: int | None) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.ended = asyncio.Event()
        self.interrupted: str | None = None

    def kill(self, reason: str) -> None:
        if self.interrupted is None:
            self.interrupted = reason
        if self.pidfd is not None:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except OSError:
                pass
        self.ended.set()

    def close(self) -> None:
        if self.pidfd is not None:
            try:
                asyncio.get_running_loop().remove_reader(self.pidfd)
            except (RuntimeError, ValueError):
                pass
            os.close(self.pidfd)
            self.pidfd = None


class _Ran(msgspec.Struct):
    """A finished run: the cells it was given, its budget, one DryRun per cell it reached."""

    sources: list[str]
    wall_s: float
    results: list[DryRun]

    def stopped_within(self, sources: list[str], wall_s: float) -> bool:
        """Would a run of `sources` stop where this one did (same cells up to its stop)?"""
        reached = len(self.results)
        last = self.results[-1]
        if last.outcome == "clean" or reached > len(sources):
            return False
        if last.outcome == "unknown" and wall_s > self.wall_s:
            return False  # it may have stopped on the budget, and the new one is larger
        return self.sources[:reached] == sources[:reached]


class _KernelTwins:
    """The dry-run state of one kernel: the live twin (at most one) and the cache."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.live: _Watch | None = None
        self.cache: dict[tuple[str | None, str, int | None], _Ran] = {}


_kernels: weakref.WeakKeyDictionary[KernelSession, _KernelTwins] = weakref.WeakKeyDictionary()


def _identity() -> tuple[str, int] | None:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as boot:
            boot_id = boot.read().strip()
        return boot_id, os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None


def _pidfd_for(session: KernelSession, started: dict[str, Any]) -> int | None:
    """A pidfd for the twin when its pid means the same process here, else None."""
    mine = _identity()
    if not session.on_this_machine or mine is None:
        return None
    if (started.get("boot_id"), started.get("pid_namespace")) != mine:
        return None
    try:
        return os.pidfd_open(int(started["pid"]))
    except (OSError, AttributeError, ValueError):
        return None


async def dry_run_cell(
    session: KernelSession, source: str, *, options: DryRunOptions | None = None
) -> DryRun:
    """Run `source` in a sealed twin of the kernel and say what happened (never raises)."""
    return (await dry_run_cells(session, [source], options=options))[0]


async def dry_run_cells(
    session: KernelSession, sources: list[str], *, options: DryRunOptions | None = None
) -> list[DryRun]:
    """Run `sources` in order in one sealed twin, as Run All would (never raises).

    One DryRun per cell the twin reached: every one clean but maybe the last, which raised
    or could not be vouched for (the cells after it were not run). `options.wall_s` is the
    budget of the whole run.
    """
    options = options or DryRunOptions()
    twins = _kernels.setdefault(session, _KernelTwins())
    key = (session.kernel_session, "\x00".join(sources), session.execution_count)
    cached = _cached(twins, key, sources, options.wall_s)
    if cached is not None:
        return [msgspec.structs.replace(result, cached=True) for result in cached]
    if twins.live is not None:
        twins.live.kill("a newer request")
    async with twins.lock:
        results = await _run_once(session, twins, sources, options)
    for result in results:
        result.execution_count = key[2]
    last = results[-1]
    # Cached only what the twin itself decided: an unknown from an interruption (a real run,
    # a busy kernel, a newer request) is not what a second try would see.
    if last.outcome in ("raised", "clean") or (
        last.outcome == "unknown" and last.fork_ms and not last.cached and _settled_by_twin(last)
    ):
        if len(twins.cache) >= CACHE_SIZE:
            twins.cache.pop(next(iter(twins.cache)))
        twins.cache[key] = _Ran(list(sources), options.wall_s, results)
    return results


def _cached(
    twins: _KernelTwins, key: tuple[str | None, str, int | None], sources: list[str], wall_s: float
) -> list[DryRun] | None:
    """This very run, or one that stopped on the same cells against the same kernel state."""
    exact = twins.cache.get(key)
    if exact is not None:
        return exact.results
    for (kernel, _joined, count), ran in twins.cache.items():
        if (kernel, count) == (key[0], key[2]) and ran.stopped_within(sources, wall_s):
            return ran.results
    return None


_INTERRUPTIONS = ("started", "newer", "busy", "killed")


def _settled_by_twin(result: DryRun) -> bool:
    """An unknown the twin's own run produced (a second try would repeat it)."""
    reason = result.reason or ""
    return not any(word in reason for word in _INTERRUPTIONS)


async def _run_once(
    session: KernelSession, twins: _KernelTwins, sources: list[str], options: DryRunOptions
) -> list[DryRun]:
    if session.state != "idle":
        return [DryRun(outcome="unknown", reason="the kernel is busy: no twin while a cell runs")]
    begun = time.perf_counter()
    payload = {"sources": sources, "wall_s": options.wall_s, "memory_mb": options.memory_mb}
    # Watched from before the start request: a real run that begins while its reply is on the
    # way kills the twin the moment its pid is known (not at the end of its budget).
    why_stop: list[str] = []
    watching: list[_Watch] = []
    # Another client's request whose busy comes before the busy of the start request (or of
    # any later request of crane's) ended before the fork: the shell runs one at a time.
    own_before = session.own_requests_started

    def on_event(event: KernelEvent) -> None:
        if isinstance(event, ExecutionRequested) and event.own_started <= own_before:
            return  # handled before the start request (a late status of a silent request)
        if isinstance(event, (ExecutionRequested, ExecutionStarted)):
            why_stop.append("a real run started in the kernel")
        elif isinstance(event, KernelDied):
            why_stop.append("the kernel died")
        else:
            return
        if watching:
            watching[0].kill(why_stop[-1])

    unsubscribe = session.subscribe(on_event)
    try:
        started = await session.run_probe("twin_start", payload, timeout=options.timeout)
    except CraneError as exc:
        unsubscribe()
        return [DryRun(outcome="unknown", reason=f"the twin could not start: {exc}")]
    except BaseException:
        unsubscribe()
        raise
    if not isinstance(started, dict) or "error" in started or "declined" in started:
        unsubscribe()
        if isinstance(started, dict) and "declined" in started:
            return [DryRun(outcome="unavailable", reason=str(started["declined"]))]
        detail = started.get("error") if isinstance(started, dict) else started
        return [DryRun(outcome="unknown", reason=f"the twin could not start: {detail}")]
    watch = _Watch(int(started["pid"]), _pidfd_for(session, started))
    fork_ms = started.get("fork_ms")
    twins.live = watch
    watching.append(watch)
    if why_stop:
        watch.kill(why_stop[0])
    try:
        results = await _wait_and_collect(session, watch, options)
    except asyncio.CancelledError:
        watch.kill("a newer edit or check")  # the kernel reaps it at its next twin request
        raise
    finally:
        unsubscribe()
        watch.close()
        twins.live = None
    elapsed_ms = (time.perf_counter() - begun) * 1000.0
    for result in results:
        if isinstance(fork_ms, (int, float)):
            result.fork_ms = float(fork_ms)
        result.elapsed_ms = elapsed_ms
    return results


async def _wait_and_collect(
    session: KernelSession, watch: _Watch, options: DryRunOptions
) -> list[DryRun]:
    deadline = time.monotonic() + options.wall_s + 1.0
    if watch.pidfd is not None:
        asyncio.get_running_loop().add_reader(watch.pidfd, watch.ended.set)
        try:
            await asyncio.wait_for(watch.ended.wait(), timeout=options.wall_s + 1.0)
        except asyncio.TimeoutError:
            watch.kill("the twin overran its budget")
    delay = 0.005
    while True:
        if watch.interrupted is not None:
            return [DryRun(outcome="unknown", reason=watch.interrupted)]
        if session.state != "idle":
            return [DryRun(outcome="unknown", reason="a real run started in the kernel")]
        try:
            report = await session.run_probe(
                "twin_collect", {"pid": watch.pid}, timeout=options.timeout
            )
        except CraneError as exc:
            return [DryRun(outcome="unknown", reason=f"the twin's report was lost: {exc}")]
        if not isinstance(report, dict):
            return [DryRun(outcome="unknown", reason="the twin's report was unreadable")]
        if report.get("state") != "running":
            if report.get("state") == "gone":
                return [DryRun(outcome="unknown", reason="the twin was gone before its report")]
            return read_cells(report)
        if time.monotonic() > deadline:
            watch.kill("the twin overran its budget")
            continue
        try:
            await asyncio.wait_for(watch.ended.wait(), timeout=delay)
        except asyncio.TimeoutError:
            pass
        delay = min(delay * 2, 0.2)
