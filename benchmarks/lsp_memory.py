"""Memory and idle CPU of the real language server with 5 kernels and 20 open notebooks.

Run: python benchmarks/lsp_memory.py [--samples 3] [--idle-seconds 10] [--all-at-once] [--quick]
Starts 5 ipykernel kernels (each holding a small DataFrame) in a private runtime directory,
starts `python -m crane_server --stdio`, opens 20 notebooks of 10 code cells through LSP
notebook sync (4 per kernel, bound with `crane.attachKernel`), waits until every cell's
diagnostics are published, then samples the server's RSS (/proc/PID/status VmRSS) and its
CPU use over idle windows (/proc/PID/stat utime+stime). Also prints the RSS of a bare
interpreter and of one that only imports the server, for the breakdown.
Budget (DESIGN.md): RSS < 80 MB, near-zero idle CPU; exit status 1 over budget. `--quick`
(CI): 1 kernel, 2 notebooks, one 1 s idle window; fails on errors, never on the budget (over
budget is reported, exit status 0).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from lsp_latency import open_params
from lsprotocol import types
from pygls.lsp.client import LanguageClient

KERNELS = 5
NOTEBOOKS_PER_KERNEL = 4
CELLS = 10
ERROR_CELLS = (4, 9)  # cells reading a missing column: their diagnostic proves a full check
MISSING = "pandas-missing-column"
RSS_BUDGET_MB = 80.0
IDLE_CPU_BUDGET_PCT = 1.0  # our reading of "near-zero"
KERNEL_TIMEOUT = 90.0
SERVER_TIMEOUT = 120.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
LOG_ARGS: list[str] = (
    ["--log-file", os.environ["CRANE_BENCH_LOG"], "--log-level", "DEBUG"]
    if os.environ.get("CRANE_BENCH_LOG")
    else []
)


def setup_code(k: int) -> str:
    return (
        "import pandas as pd\n"
        f"df = pd.DataFrame({{'a': range(100), 'b': [float(i) for i in range(100)], 'k': {k}}})\n"
    )


def cell_source(i: int) -> str:
    return [
        f"total_{i} = df['a'].sum() + {i}",
        f"mean_{i} = df['b'].mean()",
        f"df.head({i})",
        "df.describe()",
        "df['missing_col'].sum()",
        f"df['c{i}'] = df['a'] * 2",
        "df.groupby('k')['b'].sum()",
        f"x_{i} = len(df)",
        "df[['a', 'b']].max()",
        "df['nope'].mean()",
    ][i % 10]


# -- /proc readings ----------------------------------------------------------------------------


def rss_mb(pid: int) -> float:
    """Resident set size of `pid` in MB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` (not its children) in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # after the command name: state is field 3, utime 14, stime 15 (1-based in proc(5))
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found.extend(int(p) for p in (task / "children").read_text().split())
    return found


IMPORT_STEPS = (
    "asyncio",
    "lsprotocol.types",
    "pygls.lsp.server",
    "jupyter_client",
    "openai",
    "crane_server.lsp.server",
)


def import_steps() -> list[tuple[str, float]]:
    """VmRSS (MB) of a fresh interpreter at start and after each import of IMPORT_STEPS."""
    probe = (
        "import importlib, sys\n"
        "def rss():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmRSS:'):\n"
        "            return int(line.split()[1]) / 1024.0\n"
        "print('start', rss())\n"
        "for name in sys.argv[1:]:\n"
        "    importlib.import_module(name)\n"
        "    print(name, rss())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, *IMPORT_STEPS],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    return [(name, float(value)) for name, value in (line.split() for line in out.splitlines())]


# -- kernels -----------------------------------------------------------------------------------


async def _stop_kernel(manager: AsyncKernelManager) -> None:
    """Shut down politely, then kill; never raise."""
    try:
        if manager.has_kernel:
            try:
                await asyncio.wait_for(manager.shutdown_kernel(now=False), 10)
            except Exception:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(manager.shutdown_kernel(now=True), 10)
    finally:
        with contextlib.suppress(Exception):
            await manager.cleanup_resources()


async def _start_kernel(runtime: Path, k: int, managers: list[AsyncKernelManager]) -> Path:
    """Start kernel `k` (registered in `managers` before it runs) and make its DataFrame."""
    connection = runtime / f"kernel-{uuid.uuid4()}.json"
    manager = AsyncKernelManager(kernel_name="python3", connection_file=str(connection))
    manager.session.key = secrets.token_hex(32).encode()
    managers.append(manager)
    await asyncio.wait_for(
        manager.start_kernel(
            cwd=str(runtime), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ),
        KERNEL_TIMEOUT,
    )
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=KERNEL_TIMEOUT)
        reply = await client.execute(setup_code(k), reply=True, timeout=KERNEL_TIMEOUT)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"kernel {k} setup failed: {reply['content']}")
    finally:
        client.stop_channels()
    return connection


@contextlib.asynccontextmanager
async def kernels(runtime: Path, count: int) -> AsyncIterator[list[Path]]:
    """`count` kernels with random keys in `runtime`; every one is shut down on exit."""
    managers: list[AsyncKernelManager] = []
    try:
        yield list(
            await asyncio.gather(*(_start_kernel(runtime, k, managers) for k in range(count)))
        )
    finally:
        await asyncio.gather(*(_stop_kernel(m) for m in managers))


# -- the language server -----------------------------------------------------------------------


@dataclass
class Tracker:
    """Publishes per cell URI, crane error codes last shown, and when anything last arrived."""

    published: dict[str, int] = field(default_factory=dict)
    codes: dict[str, set[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    last_at: float = field(default_factory=time.monotonic)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def on_publish(self, params: types.PublishDiagnosticsParams) -> None:
        self.published[params.uri] = self.published.get(params.uri, 0) + 1
        self.codes[params.uri] = {
            str(d.code) for d in params.diagnostics if d.source in ("crane", "crane-llm")
        }
        self.touch()

    def touch(self) -> None:
        self.last_at = time.monotonic()
        self.changed.set()

    async def wait_for(self, condition: Any, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the server did not publish every cell's diagnostics in time")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(remaining, 0.5))

    async def wait_quiet(self, quiet: float, timeout: float) -> None:
        """Wait until no notification arrived for `quiet` seconds (the server is idle)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() - self.last_at < quiet:
            if time.monotonic() > deadline:
                raise TimeoutError("the server never went quiet")
            self.changed.clear()
            wait = max(0.05, quiet - (time.monotonic() - self.last_at))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), wait)


def make_client(tracker: Tracker) -> LanguageClient:
    client = LanguageClient("crane-memory-bench", "1")

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        tracker.on_publish(params)

    @client.feature("crane/kernelStatus")  # type: ignore[untyped-decorator]
    def on_status(params: Any) -> None:
        tracker.touch()

    @client.feature(types.WINDOW_SHOW_MESSAGE)  # type: ignore[untyped-decorator]
    def on_message(params: types.ShowMessageParams) -> None:
        tracker.warnings.append(params.message)
        tracker.touch()

    @client.feature(types.WINDOW_LOG_MESSAGE)  # type: ignore[untyped-decorator]
    def on_log(params: types.LogMessageParams) -> None:
        tracker.touch()

    return client


def kill_server(client: LanguageClient) -> None:
    process = getattr(client, "_server", None)
    if process is not None and process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()


async def open_all(
    client: LanguageClient,
    tracker: Tracker,
    connections: list[Path],
    root: Path,
    *,
    one_by_one: bool,
) -> list[str]:
    """Open and bind every notebook; wait for each cell's diagnostics; return the cell URIs.

    With `one_by_one`, each notebook's diagnostics are awaited before the next one is opened.
    """
    every_cell: list[str] = []
    baseline: dict[str, int] = {}  # publishes seen before the attach; a later one must follow
    for k, connection in enumerate(connections):
        for n in range(NOTEBOOKS_PER_KERNEL):
            path = root / f"k{k}" / f"notebook{n}.ipynb"
            uri = path.as_uri()
            cell_uris = [f"vscode-notebook-cell:{path}#W{i}sZmlsZQ%3D%3D" for i in range(CELLS)]
            every_cell.extend(cell_uris)
            client.notebook_document_did_open(
                open_params(uri, cell_uris, [cell_source(i) for i in range(len(cell_uris))])
            )
            baseline.update({c: tracker.published.get(c, 0) for c in cell_uris})
            status = await asyncio.wait_for(
                client.workspace_execute_command_async(
                    types.ExecuteCommandParams(
                        command="crane.attachKernel",
                        arguments=[{"uri": uri, "connection_file": str(connection)}],
                    )
                ),
                SERVER_TIMEOUT,
            )
            if not status or status.get("reason") != "command":
                raise RuntimeError(f"attach failed for {uri}: {status}")
            if one_by_one:
                await wait_checked(tracker, cell_uris, baseline)
    await wait_checked(tracker, every_cell, baseline)
    return every_cell


async def wait_checked(tracker: Tracker, cells: list[str], baseline: dict[str, int]) -> None:
    """Wait until each cell was republished since `baseline` and the error cells are flagged."""
    expected_errors = [
        c for c in cells if c.endswith(tuple(f"#W{i}sZmlsZQ%3D%3D" for i in ERROR_CELLS))
    ]

    def done() -> bool:
        return all(tracker.published.get(c, 0) > baseline[c] for c in cells) and all(
            MISSING in tracker.codes.get(c, set()) for c in expected_errors
        )

    try:
        await tracker.wait_for(done, SERVER_TIMEOUT)
    except TimeoutError as exc:
        silent = [c for c in cells if tracker.published.get(c, 0) <= baseline[c]]
        unflagged = [c for c in expected_errors if MISSING not in tracker.codes.get(c, set())]
        raise TimeoutError(
            f"{len(silent)} cells not republished after attach (e.g. {silent[:2]}), "
            f"{len(unflagged)} error cells without {MISSING} (e.g. {unflagged[:2]}, codes "
            f"{[tracker.codes.get(c) for c in unflagged[:2]]})"
        ) from exc


async def run(samples: int, idle_seconds: float, one_by_one: bool) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="crane-membench-"))
    runtime = root / "runtime"
    runtime.mkdir()
    os.environ["JUPYTER_RUNTIME_DIR"] = str(runtime)  # the kernels and the server share it
    tracker = Tracker()
    client = make_client(tracker)
    main_task = asyncio.current_task()
    assert main_task is not None
    # SIGTERM (e.g. from `timeout`) cancels the run so that the cleanup below still happens
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main_task.cancel)
    try:
        async with kernels(runtime, KERNELS) as connections:
            started = time.monotonic()
            await client.start_io(sys.executable, "-m", "crane_server", "--stdio", *LOG_ARGS)
            process = client._server  # type: ignore[attr-defined]
            assert process is not None
            pid: int = process.pid
            await asyncio.wait_for(
                client.initialize_async(
                    types.InitializeParams(
                        capabilities=types.ClientCapabilities(), initialization_options={}
                    )
                ),
                SERVER_TIMEOUT,
            )
            client.initialized(types.InitializedParams())
            await tracker.wait_quiet(quiet=1.0, timeout=SERVER_TIMEOUT)
            rss_initialized = rss_mb(pid)
            cells = await open_all(client, tracker, connections, root, one_by_one=one_by_one)
            ready_s = time.monotonic() - started
            await tracker.wait_quiet(quiet=2.0, timeout=SERVER_TIMEOUT)
            rss: list[float] = []
            cpu: list[float] = []
            notified = 0
            for _ in range(samples):
                rss.append(rss_mb(pid))
                count_before = sum(tracker.published.values())
                cpu_before, wall_before = cpu_seconds(pid), time.monotonic()
                await asyncio.sleep(idle_seconds)  # the measurement window itself
                cpu_used = cpu_seconds(pid) - cpu_before
                cpu.append(100.0 * cpu_used / (time.monotonic() - wall_before))
                notified += sum(tracker.published.values()) - count_before
            rss.append(rss_mb(pid))
            peak = 0.0
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) / 1024.0
            spawned = children(pid)
            await asyncio.wait_for(client.shutdown_async(None), 30)
            client.exit(None)
            await asyncio.wait_for(client.stop(), 30)  # type: ignore[no-untyped-call]
    finally:
        kill_server(client)
        shutil.rmtree(root, ignore_errors=True)
    return {
        "cells": len(cells),
        "ready_s": ready_s,
        "rss": rss,
        "rss_initialized": rss_initialized,
        "peak": peak,
        "cpu": cpu,
        "publishes_while_idle": notified,
        "children": spawned,
        "warnings": tracker.warnings,
    }


def main() -> int:
    global KERNELS, NOTEBOOKS_PER_KERNEL
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3, help="idle windows to sample")
    parser.add_argument("--idle-seconds", type=float, default=10.0, help="length of one window")
    parser.add_argument("--kernels", type=int, default=KERNELS)
    parser.add_argument("--notebooks-per-kernel", type=int, default=NOTEBOOKS_PER_KERNEL)
    parser.add_argument(
        "--all-at-once",
        action="store_true",
        help="open and bind every notebook before waiting for diagnostics (by default each "
        "notebook's diagnostics are awaited before the next is opened)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="1 kernel, 2 notebooks, 1 s idle, no budget (CI)"
    )
    args = parser.parse_args()
    if args.quick:
        args.kernels, args.notebooks_per_kernel, args.samples, args.idle_seconds = 1, 2, 1, 1.0
    KERNELS, NOTEBOOKS_PER_KERNEL = args.kernels, args.notebooks_per_kernel
    result = asyncio.run(run(args.samples, args.idle_seconds, not args.all_at_once))
    rss, cpu = result["rss"], result["cpu"]
    rss_ok = max(rss) < RSS_BUDGET_MB
    cpu_ok = max(cpu) < IDLE_CPU_BUDGET_PCT
    print(
        f"{KERNELS} kernels, {KERNELS * NOTEBOOKS_PER_KERNEL} notebooks, {result['cells']} cells: "
        f"all diagnostics published {result['ready_s']:.1f} s after the server started"
    )
    print(
        f"server RSS: median {statistics.median(rss):.1f} MB, max {max(rss):.1f} MB, "
        f"peak (VmHWM) {result['peak']:.1f} MB (n={len(rss)}, budget < {RSS_BUDGET_MB:.0f} MB: "
        f"{'ok' if rss_ok else 'OVER BUDGET'})"
    )
    print(
        f"server idle CPU over {args.idle_seconds:.0f} s windows: median "
        f"{statistics.median(cpu):.2f} %, max {max(cpu):.2f} % of one core (n={len(cpu)}, "
        f"budget < {IDLE_CPU_BUDGET_PCT:.0f} %: {'ok' if cpu_ok else 'OVER BUDGET'}); "
        f"diagnostics published while idle: {result['publishes_while_idle']}"
    )
    if result["children"]:
        print(f"note: the server has child processes {result['children']} (not counted)")
    if result["warnings"]:
        print(f"server warnings: {len(result['warnings'])}, first: {result['warnings'][0]!r}")
    steps = import_steps()
    print(
        f"breakdown: server after initialize, nothing open {result['rss_initialized']:.1f} MB; "
        f"{KERNELS} kernels + {KERNELS * NOTEBOOKS_PER_KERNEL} notebooks add "
        f"{max(rss) - result['rss_initialized']:.1f} MB"
    )
    print("fresh interpreter, cumulative imports (MB):")
    previous = steps[0][1]
    for name, value in steps:
        print(f"  {name:28s} {value:6.1f}  (+{value - previous:.1f})")
        previous = value
    return 0 if (rss_ok and cpu_ok) or args.quick else 1


if __name__ == "__main__":
    sys.exit(main())
