"""KernelSession against one shared real kernel: probes, inventory, events, busy state, history."""

from __future__ import annotations

import asyncio
import queue
from collections.abc import AsyncIterator
from typing import Any

import pytest

from crane_server.errors import KernelBusy, ProbeError
from crane_server.kernels.discovery import match_by_history
from crane_server.kernels.events import ExecutionFinished, ExecutionStarted
from crane_server.kernels.session import KernelSession
from tests.conftest import RunningKernel
from tests.kernels.conftest import EventQueue, run_cell

pytestmark = pytest.mark.kernel

STATE_EXPRESSION = (
    "repr((sorted(dir()), repr(_), repr(__), len(Out), len(In), "
    "sorted(k for k in __import__('sys').modules if not k.startswith('_crane_probe'))))"
)


@pytest.fixture
async def session(shared_kernel: RunningKernel) -> AsyncIterator[KernelSession]:
    attached = await KernelSession.attach(shared_kernel.connection_file, timeout=10)
    try:
        yield attached
    finally:
        await attached.close()


def observe(kernel: RunningKernel) -> dict[str, Any]:
    """The kernel's user-visible state, read silently by the test's own client."""
    client = kernel.client
    msg_id = client.execute(
        "", silent=True, store_history=False, user_expressions={"state": STATE_EXPRESSION}
    )
    reply = client.get_shell_msg(timeout=10)
    assert reply["parent_header"]["msg_id"] == msg_id
    content = reply["content"]
    history_id = client.history(hist_access_type="range", session=0, start=1, stop=None)
    history = client.get_shell_msg(timeout=10)
    assert history["parent_header"]["msg_id"] == history_id
    return {
        "count": content["execution_count"],
        "state": content["user_expressions"]["state"]["data"]["text/plain"],
        "history": len(history["content"]["history"]),
    }


def drain_iopub(kernel: RunningKernel) -> None:
    while True:
        try:
            kernel.client.get_iopub_msg(timeout=0.2)
        except queue.Empty:
            return


def iopub_until_probe_idle(kernel: RunningKernel) -> list[dict[str, Any]]:
    """IOPub messages up to the idle status of the next execute_request that is not ours."""
    seen = []
    while True:
        message = kernel.client.get_iopub_msg(timeout=10)
        seen.append(message)
        parent = message["parent_header"]
        if (
            message["msg_type"] == "status"
            and message["content"]["execution_state"] == "idle"
            and parent.get("msg_type") == "execute_request"
            and parent.get("session") != kernel.client.session.session
        ):
            return seen


async def test_probe_leaves_no_trace(shared_kernel: RunningKernel, session: KernelSession) -> None:
    events = EventQueue(session)
    await run_cell(shared_kernel, events, "a = 1\nb = [1, 2]\na + 41")
    await run_cell(shared_kernel, events, "import json")
    before = observe(shared_kernel)
    drain_iopub(shared_kernel)

    for _ in ("install", "installed"):  # the first call ships the probe, later ones do not
        reply = await session.run_probe("ping", {})
        messages = iopub_until_probe_idle(shared_kernel)
        assert reply["pid"] == session.pid
        assert {m["msg_type"] for m in messages} == {"status"}
        assert observe(shared_kernel) == before
    assert "42" in before["state"]  # `_` really holds the last result, so the check can fail


async def test_inventory_lists_user_names_only(
    shared_kernel: RunningKernel, session: KernelSession
) -> None:
    events = EventQueue(session)
    code = "import os\ndef fn(): pass\nclass K: pass\nvalue = 3\n_private = 1"
    await run_cell(shared_kernel, events, code)
    inventory = await session.inventory()
    assert inventory.source == "probe"
    assert {"os": "module", "fn": "function", "K": "type", "value": "int"}.items() <= (
        inventory.names.items()
    )
    assert "_private" in inventory.names
    for internal in ("In", "Out", "_", "__", "_i1", "_ih", "exit", "quit", "get_ipython", "open"):
        assert internal not in inventory.names


async def test_execution_events_carry_code_and_count(
    shared_kernel: RunningKernel, session: KernelSession
) -> None:
    events = EventQueue(session)
    finished = await run_cell(shared_kernel, events, "y = 41 + 1")
    started = next(e for e in events.seen if isinstance(e, ExecutionStarted))
    assert started.code == "y = 41 + 1"
    assert finished.code == "y = 41 + 1"
    assert finished.status == "ok"
    assert finished.execution_count == started.execution_count == session.execution_count
    assert isinstance(finished.execution_count, int)
    assert session.state == "idle"

    failed = await run_cell(shared_kernel, events, "1 / 0")
    assert failed.code == "1 / 0"
    assert failed.status == "error"
    assert failed.execution_count == finished.execution_count + 1


async def test_busy_kernel(shared_kernel: RunningKernel, session: KernelSession) -> None:
    events = EventQueue(session)
    await run_cell(shared_kernel, events, "def busy_helper(): pass\nclass BusyClass: pass")
    assert (await session.inventory()).source == "probe"  # idle: the complete listing
    sleeper = shared_kernel.client.execute("import time\ntime.sleep(60)")
    await events.next(ExecutionStarted, msg_id=sleeper)
    assert session.state == "busy"

    with pytest.raises(KernelBusy):
        await session.run_probe("ping", {}, timeout=1)
    info = await session.bookkeeping("control", timeout=2)  # control answers while busy
    assert info["status"] == "ok"
    inventory = await session.inventory(timeout=2)
    # the listing made while idle stands in: no cell ended since (the sleeper's names are
    # its pending code)
    assert inventory.source == "listing-before-run"
    assert {"busy_helper": "function", "BusyClass": "type"}.items() <= inventory.names.items()

    late = await KernelSession.attach(shared_kernel.connection_file, timeout=5)
    try:
        assert late.state == "busy"
        with pytest.raises(KernelBusy):  # attached while busy: no listing to stand on
            await late.inventory(timeout=2)
        shared_kernel.manager.interrupt_kernel()
        finished = await events.next(ExecutionFinished, msg_id=sleeper)
        assert finished.status == "error"  # KeyboardInterrupt
        assert session.state == "idle"
        assert shared_kernel.client.get_shell_msg(timeout=10)["parent_header"]["msg_id"] == sleeper
        assert (await session.run_probe("ping", {}))["pid"] == session.pid
    finally:
        await late.close()


async def test_another_tools_silent_request_is_not_a_running_cell(
    shared_kernel: RunningKernel, session: KernelSession
) -> None:
    """A second client's silent execute (another crane, a variable viewer) runs no cell: the
    session stays idle through it (a discovery that met one reported an idle kernel busy)."""
    from crane_server.kernels.events import StateChanged

    events = EventQueue(session)
    await run_cell(shared_kernel, events, "z = 1")
    events.seen.clear()
    tool = shared_kernel.client.execute(
        "import time; time.sleep(0.5)", silent=True, store_history=False
    )
    while shared_kernel.client.get_shell_msg(timeout=10)["parent_header"].get("msg_id") != tool:
        pass
    await session.bookkeeping("control", timeout=5)  # IOPub of the tool's request is in
    assert session.state == "idle"
    assert not any(isinstance(e, StateChanged) for e in events.seen)
    await run_cell(shared_kernel, events, "z = 2")  # a user cell still is one
    states = [e.state for e in events.seen if isinstance(e, StateChanged)]
    assert states == ["busy", "idle"]


async def test_match_by_history(shared_kernel: RunningKernel, session: KernelSession) -> None:
    cells = ["h1 = 'first'", "h2 = h1 * 2"]
    for cell in cells:
        shared_kernel.execute(cell)
    assert await match_by_history(session, cells) == 1.0
    assert await match_by_history(session, [*cells, "never_ran = 1", "  "]) == pytest.approx(2 / 3)
    assert await match_by_history(session, ["unknown_cell()"]) == 0.0


async def test_probe_reinstalls_itself_when_removed(
    shared_kernel: RunningKernel, session: KernelSession
) -> None:
    assert "pid" in await session.run_probe("ping", {})
    shared_kernel.execute(
        "import sys\nfor _k in [k for k in sys.modules if k.startswith('_crane_probe')]:\n"
        "    del sys.modules[_k]"
    )
    assert "pid" in await session.run_probe("ping", {})
    assert "pid" in await session.run_probe("ping", {})


async def test_probe_errors_are_probe_errors(session: KernelSession) -> None:
    with pytest.raises(ProbeError, match="no_such_op"):
        await session.run_probe("no_such_op", {})
    assert session.state == "idle"


async def test_detach_cancels_every_task_and_leaves_the_kernel_running(
    shared_kernel: RunningKernel,
) -> None:
    session = await KernelSession.attach(shared_kernel.connection_file, timeout=10)
    session.subscribe(lambda event: None)  # starts the heartbeat task too
    assert any(task.get_name().startswith("crane-kernel") for task in asyncio.all_tasks())
    await session.close()
    assert not [t for t in asyncio.all_tasks() if t.get_name().startswith("crane-kernel")]
    assert shared_kernel.execute("still_alive = 1")["status"] == "ok"
    again = await KernelSession.attach(shared_kernel.connection_file, timeout=10)
    await again.close()
