"""The language server killed with SIGKILL while its twin runs leaves the kernel as it was
(issue 29, round 3).

The real server (over stdio) checks a notebook and starts a dry run of a cell that loops for a
few seconds in the twin; while the twin runs, the server gets SIGKILL. Then: the twin ends
within its wall budget (it is the kernel's child, not the server's, and nothing tells it the
server died) and leaves no process behind, not even a zombie the user's `os.wait()` would
reap; nothing the server started outlives it; the kernel answers, with its names, execution
count and modules unchanged; and a new server attaching to the same kernel checks it and
runs dry runs as before. The control: the same twin, the server alive, reports the crash it
saw (so the cell does reach the twin and the twin does run that long).
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import RunningKernel
from tests.lsp.helpers import SERVER, Recorder, attach, has_code, initialize_params, open_notebook
from tests.probe.kernel_probe import _request, fingerprint

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

SETUP = "import json, signal, time\nraw = \"{'a': 1}\"\nbase = {'a': 1}"
LOOP_S = 3.0
BUDGET_S = 8.0  # the twin's wall budget (dryRunBudgetS; one pending cell)
MARGIN_S = 3.0
SLOW = f"t0 = time.monotonic()\nwhile time.monotonic() - t0 < {LOOP_S}:\n    pass\njson.loads(raw)"
QUICK = "parsed = json.loads(raw)"
DRY = "dry-run-exception"
OPTIONS = {"debounce_ms": 20, "dry_run": "always", "dry_run_budget_s": BUDGET_S}


def _evaluate(kernel: RunningKernel, expression: str) -> str:
    """The repr of `expression` in the kernel, read silently."""
    content = {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {"e": expression},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    reply, _ = _request(kernel, content, 30)
    result = reply["user_expressions"]["e"]
    assert result["status"] == "ok", result
    return str(result["data"]["text/plain"])


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (zombies included)."""
    found: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            text = Path(f"/proc/{pid}/task/{task}/children").read_text()
        except OSError:
            continue
        found.extend(int(child) for child in text.split())
    return found


def _descendants(pid: int) -> list[int]:
    found = _children(pid)
    for child in list(found):
        found.extend(_descendants(child))
    return found


def _state(pid: int) -> str:
    """The process state letter (R, S, Z...) of `pid`, or "gone"."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "gone"


def _exists(pid: int) -> bool:
    """A process with this pid exists (a zombie counts)."""
    return Path(f"/proc/{pid}").exists()


async def _start(
    kernel: RunningKernel, budget_s: float = BUDGET_S
) -> tuple[LanguageClient, Recorder]:
    client = await SERVER.start()
    recorder = Recorder(client)
    options = {**OPTIONS, "dry_run_budget_s": budget_s}
    await client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), options)
    )
    return client, recorder


async def _kill_mid_run(
    kernel: RunningKernel, kernel_pid: int, cell: str, budget_s: float
) -> tuple[int, float, list[int]]:
    """Start a server, let it start a twin of `cell`, SIGKILL the server; the twin's pid, when
    it started, and the other processes the server had started."""
    client, _recorder = await _start(kernel, budget_s)
    server = client._server  # type: ignore[attr-defined]
    assert server is not None
    uri = f"file:///work/killed-{abs(hash(cell))}.ipynb"
    open_notebook(client, uri, [("code", SETUP), ("code", cell)])
    await attach(client, uri, kernel)
    # watched from /proc only: a request to the kernel would end the twin (a real run)
    twins = await _poll(lambda: _children(kernel_pid), 30)
    assert len(twins) == 1, twins
    started = time.monotonic()
    await asyncio.sleep(0.5)  # mid-run
    assert _exists(twins[0]) and twins[0] in _children(kernel_pid)
    others = [pid for pid in _descendants(server.pid) if pid != twins[0]]
    os.kill(server.pid, signal.SIGKILL)
    await server.wait()
    await client.stop()
    return twins[0], started, others


async def _poll(condition: Any, timeout: float, step: float = 0.05) -> Any:
    """Wait until `condition()` (blocking, run in a thread) is truthy; its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = await asyncio.to_thread(condition)
        if value or time.monotonic() > deadline:
            return value
        await asyncio.sleep(step)


@pytest.fixture(scope="module")
def twin_kernel(runtime_dir: Path) -> Iterator[RunningKernel]:
    running = RunningKernel(runtime_dir)
    try:
        assert running.execute(SETUP)["status"] == "ok"
        yield running
    finally:
        running.shutdown()


async def test_control_the_twin_runs_the_slow_cell_and_reports(
    twin_kernel: RunningKernel,
) -> None:
    kernel_pid = int(_evaluate(twin_kernel, "__import__('os').getpid()"))
    client, recorder = await _start(twin_kernel)
    try:
        uri = "file:///work/killed-control.ipynb"
        cells = open_notebook(client, uri, [("code", SETUP), ("code", SLOW)])
        await attach(client, uri, twin_kernel)
        # watched from /proc only: a request to the kernel would end the twin (a real run)
        assert await _poll(lambda: _children(kernel_pid), 30), "no twin started"
        found = await recorder.wait_for(lambda: has_code(client, cells[1], DRY), timeout=60)
        assert "JSONDecodeError" in found[0].message
    finally:
        await client.shutdown_session()
        await client.stop()


async def test_sigkill_mid_dry_run_leaves_nothing_and_the_next_server_works(
    twin_kernel: RunningKernel,
) -> None:
    kernel_pid = int(_evaluate(twin_kernel, "__import__('os').getpid()"))
    before = fingerprint(twin_kernel)
    twin, started, others = await _kill_mid_run(twin_kernel, kernel_pid, SLOW, BUDGET_S)

    # the twin is gone, reaped, within its budget; nothing the server started outlives it
    gone = await _poll(lambda: not _exists(twin), BUDGET_S + MARGIN_S)
    took = time.monotonic() - started
    assert gone, f"the twin {twin} is still there {took:.1f} s after it started ({_state(twin)})"
    assert took < BUDGET_S + MARGIN_S
    assert [pid for pid in others if _exists(pid)] == []

    # the kernel answers, unchanged, with no child left for its `os.wait()`
    assert fingerprint(twin_kernel) == before
    assert _children(kernel_pid) == []

    # a new server attaches to the same kernel and checks it: the checker and a dry run
    client, recorder = await _start(twin_kernel)
    try:
        uri = "file:///work/after-kill.ipynb"
        cells = open_notebook(
            client, uri, [("code", SETUP), ("code", QUICK), ("code", "base['zz']")]
        )
        await attach(client, uri, twin_kernel)
        missing = await recorder.wait_for(lambda: has_code(client, cells[2], "python-missing-key"))
        assert missing[0].severity == types.DiagnosticSeverity.Error
        found = await recorder.wait_for(lambda: has_code(client, cells[1], DRY), timeout=60)
        assert "JSONDecodeError" in found[0].message
    finally:
        await client.shutdown_session()
        await client.stop()
    assert fingerprint(twin_kernel) == before
    assert _children(kernel_pid) == []


async def test_a_twin_that_blocks_its_alarm_ends_at_its_deadline_without_the_server(
    twin_kernel: RunningKernel,
) -> None:
    # the cell blocks the budget's SIGALRM (the seal denies handlers, not masks) and sleeps:
    # no CPU budget ends it, only the kernel's reaper at the deadline (without it, nothing
    # would until the sleep ends or the kernel exits)
    kernel_pid = int(_evaluate(twin_kernel, "__import__('os').getpid()"))
    before = fingerprint(twin_kernel)
    budget_s = 2.0
    cell = "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])\ntime.sleep(120)"
    twin, started, _others = await _kill_mid_run(twin_kernel, kernel_pid, cell, budget_s)
    gone = await _poll(lambda: not _exists(twin), budget_s + MARGIN_S)
    took = time.monotonic() - started
    assert gone, f"the twin {twin} is still there {took:.1f} s after it started ({_state(twin)})"
    assert _children(kernel_pid) == []
    assert fingerprint(twin_kernel) == before
