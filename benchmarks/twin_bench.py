"""What the dry run costs and how fast it answers, against real kernels.

Run: python benchmarks/twin_bench.py [--rounds 20] [--sizes 0.1,1,2,8] [--quick]
Prints medians and p95 (ms) of:
- the kernel's pause for the fork, with 0.1 / 1 / 2 / 8 GB of resident numpy data
  (budget: <= 30 ms at 2 GB);
- the twin's proportional memory (PSS, from /proc/PID/smaps_rollup) for typical cells on a
  kernel holding a 1e6-row frame;
- a user's cell (0.3 s of numpy work) alone, while a twin spins and the daemon watches (it is
  killed at execute_input), and while a twin spins unwatched (a remote kernel: SCHED_IDLE);
- kill latency: a real execute_request sent -> the twin gone (budget: <= 10 ms);
- edit -> dry-run Error published over LSP, through the real server, for the last cell of a
  five-cell notebook that crashes at once, the four cells above pending (run in order in the
  same twin first, as Run All would; an Error left in a cell above would stop the run there
  and the edited cell would get no dry-run verdict) (budget: p95 <= 1 s).
`--quick` (CI): 0.1 GB only, 3 rounds; fails on errors, never on times.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import select
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from jupyter_client.asynchronous.client import AsyncKernelClient
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from crane_server.kernels.events import ExecutionRequested
from crane_server.kernels.launch import fresh_kernel
from crane_server.kernels.session import KernelSession
from crane_server.twin import DryRunOptions, dry_run_cell

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp_latency import edit_params, open_params

WORK = "import numpy as _np\n_m = _np.random.default_rng(0).random((700, 700))\nfor _ in range(6): _m @ _m"
SPIN = "while True:\n    pass"


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def line(label: str, samples: list[float], unit: str = "ms") -> str:
    return (
        f"{label:58s} median {statistics.median(samples):8.1f} {unit}  "
        f"p95 {p95(samples):8.1f} {unit}  (n={len(samples)})"
    )


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


async def wait_idle(session: KernelSession) -> None:
    """Until this session saw the other client's cell end (its reply may come first)."""
    deadline = time.monotonic() + 30
    while session.state != "idle" and time.monotonic() < deadline:
        await asyncio.sleep(0.005)


async def kernel_pid(session: KernelSession) -> int:
    reply = await session.run_probe("ping", {})
    return int(reply["pid"])


async def fork_pause(session: KernelSession, sizes: list[float], rounds: int) -> None:
    for size in sizes:
        outcome = await session.execute(
            f"import numpy as np\nblob = None\nblob = np.ones(int({size} * 2**30 / 8))",
            timeout=300,
        )
        assert outcome.status == "ok", outcome
        pauses = []
        for k in range(rounds):
            dry = await dry_run_cell(session, f"x_{k} = 1")
            assert dry.outcome == "clean", dry
            assert dry.fork_ms is not None
            pauses.append(dry.fork_ms)
        print(line(f"fork pause, {size:g} GB resident", pauses), flush=True)
    await session.execute("blob = None", timeout=60)


async def twin_memory(session: KernelSession, rounds: int) -> None:
    setup = (
        "import pandas as pd, numpy as np\n"
        "frame = pd.DataFrame({'k': np.arange(1_000_000) % 100, 'v': np.random.rand(1_000_000)})"
    )
    assert (await session.execute(setup, timeout=120)).status == "ok"
    cells = {
        "groupby": "g = frame.groupby('k')['v'].sum()",
        "new column": "frame['w'] = frame['v'] * 2",
        "copy": "f2 = frame.copy()",
    }
    for label, cell in cells.items():
        samples = []
        for _ in range(rounds):
            started = await session.run_probe(
                "twin_start", {"source": cell + "\nimport time\ntime.sleep(0.6)", "wall_s": 3}
            )
            pid = int(started["pid"])
            time.sleep(0.4)
            with open(f"/proc/{pid}/smaps_rollup") as rollup:
                pss = next(int(x.split()[1]) for x in rollup if x.startswith("Pss:"))
            samples.append(pss / 1024)
            while (await session.run_probe("twin_collect", {"pid": pid}))["state"] == "running":
                await asyncio.sleep(0.05)
        print(line(f"twin PSS, {label} on a 1e6-row frame", samples, "MB"), flush=True)


async def other_client(session: KernelSession) -> AsyncKernelClient:
    client = AsyncKernelClient(connection_file=str(session.connection_file))
    client.load_connection_file()
    client.start_channels()
    await client.wait_for_ready(timeout=30)
    return client


async def timed_user_cell(client: AsyncKernelClient) -> float:
    started = time.perf_counter()
    reply = await client.execute_interactive(WORK, timeout=60, output_hook=lambda m: None)
    assert reply["content"]["status"] == "ok", reply["content"]
    return (time.perf_counter() - started) * 1000.0


async def user_cell_slowdown(
    session: KernelSession, client: AsyncKernelClient, rounds: int
) -> None:
    alone = [await timed_user_cell(client) for _ in range(rounds)]
    watched = []
    for _ in range(rounds):
        await wait_idle(session)
        task = asyncio.ensure_future(dry_run_cell(session, SPIN, options=DryRunOptions(wall_s=10)))
        await asyncio.sleep(0.3)
        watched.append(await timed_user_cell(client))
        await task
    unwatched = []
    for _ in range(rounds):
        await wait_idle(session)
        started = await session.run_probe("twin_start", {"source": SPIN, "wall_s": 10})
        await asyncio.sleep(0.3)
        unwatched.append(await timed_user_cell(client))
        await wait_idle(session)
        await session.run_probe("twin_kill", {})
        assert started["pid"]
    print(line("user cell alone", alone), flush=True)
    print(line("user cell, twin spinning, daemon watching (killed)", watched), flush=True)
    print(line("user cell, twin spinning unwatched (SCHED_IDLE)", unwatched), flush=True)
    ratio = statistics.median(unwatched) / statistics.median(alone)
    print(f"{'unwatched / alone (median)':58s} {ratio:.2f}x", flush=True)


async def kill_latency(session: KernelSession, client: AsyncKernelClient, rounds: int) -> None:
    pid = await kernel_pid(session)
    samples: list[float] = []
    after_notice: list[float] = []
    noticed: list[float] = []

    def on_event(event: object) -> None:
        if isinstance(event, ExecutionRequested) and not noticed:
            noticed.append(time.perf_counter())

    unsubscribe = session.subscribe(on_event)
    for _ in range(rounds):
        noticed.clear()
        await wait_idle(session)
        task = asyncio.ensure_future(dry_run_cell(session, SPIN, options=DryRunOptions(wall_s=10)))
        deadline = time.monotonic() + 10
        while not children(pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        (twin,) = children(pid)
        pidfd = os.pidfd_open(twin)
        sent = time.perf_counter()
        msg_id = client.execute("pass")
        ready, _, _ = await asyncio.get_running_loop().run_in_executor(
            None, select.select, [pidfd], [], [], 5.0
        )
        gone = time.perf_counter()
        os.close(pidfd)
        assert ready, "the twin outlived a real run"
        samples.append((gone - sent) * 1000.0)
        if noticed:
            after_notice.append((gone - noticed[0]) * 1000.0)
        await task
        while True:
            reply = await client.get_shell_msg(timeout=10)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
    unsubscribe()
    print(line("kill latency: execute_request sent -> twin gone", samples), flush=True)
    print(line("kill latency: kernel's busy notice -> twin gone", after_notice), flush=True)


async def edit_to_error(session: KernelSession, rounds: int) -> None:
    await wait_idle(session)
    setup = "import json\nraw = \"{'a': 1}\""
    assert (await session.execute(setup, timeout=60)).status == "ok"
    uri = "file:///bench/twin.ipynb"
    cell_uris = [f"vscode-notebook-cell:/bench/twin.ipynb#cell{i}" for i in range(5)]
    seen: dict[str, tuple[float, list[types.Diagnostic]]] = {}
    changed = asyncio.Event()
    client = LanguageClient("crane-twin-bench", "1")

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        seen[params.uri] = (time.perf_counter(), list(params.diagnostics))
        changed.set()

    @client.feature("crane/kernelStatus")
    def on_status(params: Any) -> None:
        pass

    await client.start_io(sys.executable, "-m", "crane_server", "--stdio")
    options = {
        "connection_file": str(session.connection_file),
        "debounce_ms": 0,
        "dry_run": "always",
    }
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(), initialization_options=options
        )
    )
    client.initialized(types.InitializedParams())
    client.notebook_document_did_open(
        open_params(uri, cell_uris, [f"v{i} = {i}" for i in range(5)])
    )
    samples = []
    for k in range(rounds):
        target = cell_uris[-1]
        sent = time.perf_counter()
        client.notebook_document_did_change(
            edit_params(uri, target, k + 2, f"config_{k} = json.loads(raw)")
        )
        deadline = sent + 10
        while time.perf_counter() < deadline:
            at, diagnostics = seen.get(target, (0.0, []))
            if at > sent and any(d.code == "dry-run-exception" for d in diagnostics):
                samples.append((at - sent) * 1000.0)
                break
            changed.clear()
            try:
                await asyncio.wait_for(changed.wait(), 1.0)
            except asyncio.TimeoutError:
                pass
        else:
            raise AssertionError(f"no dry-run Error for {target} within 10 s")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    print(line("edit -> dry-run Error published over LSP", samples), flush=True)


async def run(args: argparse.Namespace) -> None:
    sizes = [0.1] if args.quick else [float(s) for s in args.sizes.split(",")]
    rounds = 3 if args.quick else args.rounds
    with tempfile.TemporaryDirectory() as folder:
        async with fresh_kernel(Path(folder)) as session:
            await fork_pause(session, sizes, rounds)
            await twin_memory(session, min(rounds, 5))
            client = await other_client(session)
            try:
                await user_cell_slowdown(session, client, min(rounds, 5))
                await kill_latency(session, client, rounds)
            finally:
                client.stop_channels()
            await edit_to_error(session, rounds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--sizes", default="0.1,1,2,8", help="resident GB for the fork pause")
    parser.add_argument(
        "--quick", action="store_true", help="CI: small and few; never fails on times"
    )
    asyncio.run(run(parser.parse_args()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
