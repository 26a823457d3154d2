"""Listing the user's names never runs user code, idle or busy (issue 29, round 3).

While a cell runs, the shell cannot answer, and the debugger's `inspectVariables` (which
answers on control) computes a repr of every value: the user's `__repr__` runs, on the
kernel's control thread, in the middle of the user's cell. The session no longer asks it:
while busy it stands on the listing made before the cell started, and only when no user cell
ended since (else a name bound or deleted by that cell would be judged wrongly); otherwise the
names are unavailable and a busy-time check does not judge them.

The tripwires append to a marker file: a value whose `__repr__` writes, a class whose
metaclass has a `__name__` property that writes (a listing that reads `type(v).__name__`
calls it), and a user binding of `type` that would break a listing using the name `type`.
The controls fire each tripwire the way the old listing did.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crane_server.errors import KernelBusy
from crane_server.kernels.events import ExecutionFinished, ExecutionStarted
from crane_server.kernels.session import KernelSession
from tests.conftest import RunningKernel
from tests.kernels.conftest import EventQueue, run_cell

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(180)]

SETUP = """
MARK = {mark!r}

def _hit(what):
    with open(MARK, "a") as out:
        out.write(what + "\\n")

class Loud:
    def __repr__(self):
        _hit("__repr__")
        return "Loud()"

class Meta(type):
    @property
    def __name__(cls):
        _hit("metaclass __name__")
        return "Meta"

class Odd(metaclass=Meta):
    pass

loud = Loud()
odd = Odd()
type = "a user's own binding of the name"
"""


def hits(mark: Path) -> list[str]:
    return mark.read_text().splitlines() if mark.exists() else []


async def test_busy_listing_runs_no_user_code_and_is_never_stale(
    kernel: RunningKernel, tmp_path: Path
) -> None:
    mark = tmp_path / "hits.txt"
    session = await KernelSession.attach(kernel.connection_file, timeout=10)
    try:
        events = EventQueue(session)
        await run_cell(kernel, events, SETUP.format(mark=str(mark)))

        idle = await session.inventory(timeout=5)
        assert idle.source == "probe"
        assert {"loud": "Loud", "odd": "Odd", "type": "str", "Meta": "type"}.items() <= (
            idle.names.items()
        )
        assert hits(mark) == []

        sleeper = kernel.client.execute("import time\ntime.sleep(60)")
        await events.next(ExecutionStarted, msg_id=sleeper)
        assert session.state == "busy"
        busy = await session.inventory(timeout=5)
        assert busy.source == "listing-before-run"
        assert busy.names == idle.names
        assert hits(mark) == []

        # control: the debugger's listing, as the session asked it before, runs __repr__
        debug = {"type": "request", "seq": 1, "command": "inspectVariables", "arguments": {}}
        reply = await session.request("control", "debug_request", debug, timeout=10)
        assert reply.get("success"), reply
        assert "__repr__" in hits(mark)
        mark.unlink()

        kernel.manager.interrupt_kernel()
        await events.next(ExecutionFinished, msg_id=sleeper)
        assert (await session.inventory(timeout=5)).source == "probe"  # idle: listed again

        # a cell that ends while the next one is queued: the listing before it is stale
        kernel.client.execute("fresh_name = 2\ndel loud")
        second = kernel.client.execute("import time\ntime.sleep(60)")
        await events.next(ExecutionStarted, msg_id=second)
        assert session.state == "busy"
        with pytest.raises(KernelBusy, match="a cell ran since its names were last listed"):
            await session.inventory(timeout=5)
        kernel.manager.interrupt_kernel()
        await events.next(ExecutionFinished, msg_id=second)
        after = await session.inventory(timeout=5)
        assert "fresh_name" in after.names and "loud" not in after.names
        assert hits(mark) == []

        # control: reading `type(v).__name__` for the class, as the old listing did, runs
        # the metaclass property
        await run_cell(kernel, events, "__import__('builtins').type(odd).__name__")
        assert hits(mark) == ["metaclass __name__"]
        events.unsubscribe()
    finally:
        await session.close()
