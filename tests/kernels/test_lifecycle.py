"""Restart, death and private kernels: events fire, requests time out, nothing hangs."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path

import pytest
from jupyter_client.manager import KernelManager

from crane_server.errors import KernelNotFound, KernelTimeout
from crane_server.kernels.events import KernelDied, KernelRestarted, StateChanged
from crane_server.kernels.launch import fresh_kernel
from crane_server.kernels.session import KernelSession
from tests.conftest import RunningKernel
from tests.kernels.conftest import EventQueue

pytestmark = pytest.mark.kernel


async def test_restart_is_detected_and_state_recovers(kernel: RunningKernel) -> None:
    kernel.execute("before_restart = 1")
    session = await KernelSession.attach(kernel.connection_file, timeout=10, heartbeat=0.3)
    try:
        events = EventQueue(session)
        old_pid, old_session = session.pid, session.kernel_session
        assert old_pid is not None
        kernel.manager.restart_kernel(now=True)
        await events.next(KernelRestarted, timeout=20)
        assert session.kernel_session != old_session
        assert session.execution_count is None  # cached state dropped
        ping = await session.run_probe("ping", {}, timeout=10)
        assert ping["pid"] != old_pid
        assert session.state == "idle"
        assert "before_restart" not in (await session.inventory()).names
    finally:
        await session.close()


async def test_killed_kernel_dies_and_requests_time_out(kernel: RunningKernel) -> None:
    session = await KernelSession.attach(kernel.connection_file, timeout=10, heartbeat=0.3)
    try:
        events = EventQueue(session)
        assert session.pid is not None
        os.kill(session.pid, signal.SIGKILL)
        died = await events.next(KernelDied, timeout=10)
        assert died.reason
        assert session.state == "dead"
        assert any(isinstance(e, StateChanged) and e.state == "dead" for e in events.seen)
        with pytest.raises(KernelTimeout):
            await session.bookkeeping("control", timeout=0.3)
        with pytest.raises(KernelTimeout):
            await session.run_probe("ping", {}, timeout=0.3)
        with pytest.raises(KernelTimeout):
            await session.inventory(timeout=0.3)
    finally:
        await session.close()


async def test_fresh_kernel_executes_like_a_user(tmp_path: Path) -> None:
    (tmp_path / "data.txt").write_text("hello", encoding="utf-8")
    async with fresh_kernel(tmp_path, startup_timeout=60) as session:
        pid = session.pid
        ok = await session.execute("text = open('data.txt').read()", timeout=10)
        assert ok.status == "ok"
        assert ok.execution_count == 1
        error = await session.execute("int(text)", timeout=10)
        assert error.status == "error"
        assert error.ename == "ValueError"
        assert "hello" in (error.evalue or "")
        assert error.traceback
        assert error.execution_count == 2
        assert (await session.inventory()).names["text"] == "str"
        timed_out = await session.execute("import time\ntime.sleep(30)", timeout=0.3)
        assert timed_out.status == "timeout"
    assert pid is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_kernel_without_debugger_lists_names_while_busy_too(tmp_path: Path) -> None:
    blocker = tmp_path / "debugpy"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError('no debugpy here')\n")
    manager = KernelManager(
        kernel_name="python3", connection_file=str(tmp_path / "kernel-nodebug.json")
    )
    manager.session.key = b"nodebug-key"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    manager.start_kernel(env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        session = await KernelSession.attach(manager.connection_file, timeout=30)
        try:
            events = EventQueue(session)
            assert "debugger" not in session.supported_features
            await session.execute("plain = 1", timeout=10)
            inventory = await session.inventory()
            assert inventory.source == "probe"
            assert inventory.names["plain"] == "int"
            blocking = asyncio.ensure_future(
                session.execute("import time\ntime.sleep(60)", timeout=30)
            )
            await events.next(StateChanged, state="busy")
            # no debugger needed: the listing made before the cell started stands in
            busy = await session.inventory(timeout=1)
            assert busy.source == "listing-before-run" and busy.names["plain"] == "int"
            manager.interrupt_kernel()
            assert (await blocking).status == "error"
        finally:
            await session.close()
    finally:
        manager.shutdown_kernel(now=True)


async def test_fresh_kernel_with_unknown_kernel_name(tmp_path: Path) -> None:
    with pytest.raises(KernelNotFound, match="no-such-kernel"):
        async with fresh_kernel(tmp_path, kernel_name="no-such-kernel"):
            pass  # pragma: no cover


async def test_hung_kernel_is_reported_dead_then_revives(kernel: RunningKernel) -> None:
    session = await KernelSession.attach(kernel.connection_file, timeout=10, heartbeat=0.2)
    try:
        events = EventQueue(session)
        assert session.pid is not None
        os.kill(session.pid, signal.SIGSTOP)  # alive, but answers nothing
        try:
            died = await events.next(KernelDied, timeout=10)
            assert "stopped answering" in died.reason
            with pytest.raises(KernelTimeout):
                await session.bookkeeping("control", timeout=0.2)
        finally:
            os.kill(session.pid, signal.SIGCONT)
        await events.next(StateChanged, state="idle", timeout=10)
        assert not any(isinstance(event, KernelRestarted) for event in events.seen)
        assert (await session.run_probe("ping", {}))["pid"] == session.pid
    finally:
        await session.close()
