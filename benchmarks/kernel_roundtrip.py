"""Round-trip latency of the kernel layer on an idle kernel holding 100 variables.

Run: python benchmarks/kernel_roundtrip.py [--repeat 200]
Prints median and p95 (ms) of: control kernel_info, probe "ping", inventory (silent shell
listing and control inspectVariables), and probe "summarise" of all 100 names.
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

from crane_server.kernels import inventory as inv
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


async def _inspect_variables(session: KernelSession) -> Any:
    debug = {"type": "request", "seq": 1, "command": "inspectVariables", "arguments": {}}
    content = await session.request("control", "debug_request", debug, timeout=5)
    return inv.parse_inspect_variables(content)


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
            cases: dict[str, Callable[[], Awaitable[Any]]] = {
                "control kernel_info": lambda: session.kernel_info(timeout=5),
                "probe ping (shell, silent)": lambda: session.run_probe("ping", {}),
                "inventory (idle: silent listing)": lambda: session.inventory(timeout=5),
                "inventory (control inspectVariables)": lambda: _inspect_variables(session),
                f"probe summarise ({len(names)} names)": lambda: session.run_probe(
                    "summarise", {"names": names, "categories": ["S", "V", "R"]}, timeout=10
                ),
            }
            print(f"{'request':42} {'median ms':>10} {'p95 ms':>10}")
            for label, call in cases.items():
                median, p95 = await measure(call, repeat)
                print(f"{label:42} {median:10.2f} {p95:10.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    asyncio.run(main(parser.parse_args().repeat))
