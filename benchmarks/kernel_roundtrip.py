"""Round-trip latency of the kernel layer on an idle kernel holding 100 variables.

Run: python benchmarks/kernel_roundtrip.py [--repeat 200] [--quick]
Prints median and p95 (ms) of: the control bookkeeping request (`comm_info_request`, what
attach and the heartbeat send; crane never sends kernel_info), the kernel's floor (a silent
`execute_request` with one user expression, the describe request crane sends at attach, sent
through the session's own request path), probe "ping", inventory (the silent shell listing;
the debugger's inspectVariables is not used: it reprs every value), and probe "summarise" of
all 100 names; then the probe ping's median over the floor's. `--quick`: 5 repetitions, for CI (fails on errors, never on times).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from crane_server.kernels.bookkeeping import describe_request_content, parse_describe_reply
from crane_server.kernels.launch import fresh_kernel
from crane_server.kernels.session import KernelSession

SETUP = """
import numpy as np
import pandas as pd
frame = pd.DataFrame({"a": range(1000), "b": [str(i) for i in range(1000)]})
array = np.arange(1000.0).reshape(100, 10)
""" + "\n".join(
    f"var_{i} = {value}"
    for i, value in enumerate(
        ["list(range(10))", "{'k': 1}", "'text'", "3.5", "42", "frame", "array", "(1, 2)"] * 13
    )
    if i < 96
)


async def _silent_floor(session: KernelSession) -> Any:
    """One silent execute_request with one user expression: what any probe costs at least."""
    content = await session.request(
        "shell", "execute_request", describe_request_content(), timeout=5
    )
    if content.get("status") != "ok" or not parse_describe_reply(content):
        raise RuntimeError(f"the silent execute failed: {content}")
    return content


async def measure(call: Callable[[], Awaitable[Any]], repeat: int) -> tuple[float, float]:
    for _ in range(5):  # warm up (first probe call installs the probe package)
        await call()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000.0)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(0.95 * len(samples)))]


async def main(repeat: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        async with fresh_kernel(Path(folder)) as session:
            outcome = await session.execute(SETUP, timeout=120)
            if outcome.status != "ok":
                sys.exit(f"setup failed: {outcome.ename}: {outcome.evalue}")
            names = sorted((await session.inventory()).names)
            print(f"kernel with {len(names)} user names, {repeat} repetitions each\n")
            floor = "silent execute, 1 user expression (floor)"
            cases: dict[str, Callable[[], Awaitable[Any]]] = {
                "control bookkeeping (comm_info_request)": lambda: session.bookkeeping(
                    "control", timeout=5
                ),
                floor: lambda: _silent_floor(session),
                "probe ping (shell, silent)": lambda: session.run_probe("ping", {}),
                "inventory (idle: silent listing)": lambda: session.inventory(timeout=5),
                f"probe summarise ({len(names)} names)": lambda: session.run_probe(
                    "summarise", {"names": names, "categories": ["S", "V", "R"]}, timeout=10
                ),
            }
            print(f"{'request':42} {'median ms':>10} {'p95 ms':>10}")
            medians: dict[str, float] = {}
            for label, call in cases.items():
                median, p95 = await measure(call, repeat)
                medians[label] = median
                print(f"{label:42} {median:10.2f} {p95:10.2f}")
            ping = medians["probe ping (shell, silent)"]
            print(f"\nprobe ping / floor (medians): {ping / medians[floor]:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="5 repetitions (CI)")
    args = parser.parse_args()
    asyncio.run(main(5 if args.quick else args.repeat))
