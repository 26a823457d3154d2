"""Checking a heavy cell never stalls or floods the user's kernel.

Heavy cells (seconds to minutes of CPU, or gigabytes, if evaluated) are checked through the
probe while a second client on the same connection file keeps asking the kernel a trivial
shell request (comm_info). The shell answers it only between probe requests, so its round
trip shows how long each check held the kernel. The kernel's RSS and peak RSS (VmHWM, which
also catches a transient allocation) are read from /proc before and after.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from jupyter_client import BlockingKernelClient

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import run_probe

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

SETUP = """\
import itertools, math, re
import numpy as np
import pandas as pd
import torch
from torch import nn
n = 2_000_000
left = pd.DataFrame({"k": np.arange(n) % 1000, "v": np.arange(n, dtype=float)})
right = pd.DataFrame({"k": np.arange(n) % 1000, "w": np.arange(n, dtype=float)})
A = torch.ones(3000, 3000)
B = torch.ones(3000, 3000)
big = np.ones((3000, 3000))
lin = nn.Linear(3000, 10)
col = torch.ones(10_000, 1)  # small enough to be judged on real copies, not on meta
row = torch.ones(1, 10_000)
tall = np.ones((1999, 1))  # under the sampling threshold: judged on exact copies
flat = np.ones((1, 50_000))
"""
# Evaluated for real, each of these takes seconds to minutes, or gigabytes.
HEAVY = [
    "total = sum(range(10**9))",
    "x = 10 ** (10 ** 7)",
    "y = pow(3, 10**9)",
    "u = 1 << (10 ** 10)",
    "f = math.factorial(10**7)",
    "z = np.ones((16000, 16000))",
    "r = np.arange(10**10)",
    "o = np.outer(np.arange(10**5), np.arange(10**5))",
    "w = 'x' * 10**10",
    "v = list(range(10**9))",
    "s = sorted(range(10**8))",
    "c = [i for i in range(10**8)]",
    "p = list(itertools.product(range(1000), repeat=4))",
    "m = pd.merge(left, right, on='k')",
    "m2 = left.merge(right, on='k', how='outer')",
    "j = left.join(right, lsuffix='_l')",
    "g = left.groupby('k').apply(lambda frame: frame)",
    "e = left.apply(lambda row: row, axis=1)",
    "t = A @ B",
    "t2 = torch.matmul(A, B)",
    "t3 = torch.ones(10**5, 10**5)",
    "t4 = lin(torch.ones(10**6, 3000))",
    "i = np.linalg.inv(big)",
    "cr = col @ row",
    "cr2 = torch.matmul(col, row)",
    "cr3 = col * row",
    "tf = np.dot(tall, flat)",
    "tf2 = tall * flat",
    "tf3 = np.add(tall, flat)",
    "q = big @ big",
    "k = re.match('(a+)+$', 'a' * 40 + 'b')",
    "for i in range(10**9):\n    total = i * 2",
    "while True:\n    pass",
]
MAX_ADDED_LATENCY_S = 1.0
MAX_RSS_GROWTH_KB = 50 * 1024


def proc_status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"{field} not in /proc/{pid}/status")


class Pinger:
    """A second client timing a trivial shell round trip, over and over, in a thread."""

    def __init__(self, connection_file: Path) -> None:
        self.client = BlockingKernelClient(connection_file=str(connection_file))
        self.client.load_connection_file()
        self.client.start_channels()
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def once(self) -> float:
        started = time.perf_counter()
        msg_id = self.client.comm_info()
        while True:
            reply = self.client.get_shell_msg(timeout=60)
            if reply["parent_header"].get("msg_id") == msg_id:
                return time.perf_counter() - started

    def measure(self, count: int) -> list[float]:
        return [self.once() for _ in range(count)]

    def start(self) -> None:
        self.samples = []
        self._stop.clear()

        def loop() -> None:
            while not self._stop.is_set():
                self.samples.append(self.once())
                time.sleep(0.005)

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self) -> list[float]:
        self._stop.set()
        assert self._thread is not None
        self._thread.join(timeout=120)
        return self.samples

    def close(self) -> None:
        self.client.stop_channels()


@pytest.fixture(scope="module")
def heavy_kernel(runtime_dir: Path) -> Iterator[RunningKernel]:
    running = RunningKernel(runtime_dir)
    try:
        assert running.execute(SETUP)["status"] == "ok"
        yield running
    finally:
        running.shutdown()


def test_heavy_cells_neither_stall_nor_grow_the_kernel(heavy_kernel: RunningKernel) -> None:
    pid = heavy_kernel.manager.provisioner.pid  # type: ignore[union-attr]
    # A first round pays what loads once per kernel: torch's meta-device kernels (about 1 s
    # and 32 MB on the first meta matmul, see test_check_never_disturbs). Bounded, reported.
    rss_start = proc_status_kb(pid, "VmRSS")
    first_round = {}
    for cell in HEAVY:
        started = time.perf_counter()
        run_probe(heavy_kernel, "check", {"source": cell}, timeout=60)
        first_round[cell] = time.perf_counter() - started
    slowest_first = max(first_round, key=lambda cell: first_round[cell])
    first_growth = proc_status_kb(pid, "VmRSS") - rss_start
    print(
        f"first round: slowest {first_round[slowest_first] * 1000:.0f} ms ({slowest_first!r}), "
        f"RSS growth {first_growth} kB"
    )
    assert first_round[slowest_first] < 3.0, (slowest_first, first_round[slowest_first])
    assert first_growth < 2 * MAX_RSS_GROWTH_KB, first_growth
    pinger = Pinger(heavy_kernel.connection_file)
    try:
        idle = statistics.median(pinger.measure(30))
        rss_before = proc_status_kb(pid, "VmRSS")
        peak_before = proc_status_kb(pid, "VmHWM")
        pinger.start()
        check_times = {}
        for _round in range(3):
            for cell in HEAVY:
                started = time.perf_counter()
                result, _ = run_probe(heavy_kernel, "check", {"source": cell}, timeout=60)
                check_times[cell] = max(check_times.get(cell, 0.0), time.perf_counter() - started)
                assert "error" not in result, result
        busy = pinger.stop()
        rss_growth = proc_status_kb(pid, "VmRSS") - rss_before
        peak_growth = proc_status_kb(pid, "VmHWM") - peak_before
    finally:
        pinger.close()
    added = [sample - idle for sample in busy]
    slowest = max(check_times, key=lambda cell: check_times[cell])
    summary = (
        f"{len(busy)} pings during {3 * len(HEAVY)} checks; idle round trip {idle * 1000:.1f} ms; "
        f"added latency median {statistics.median(added) * 1000:.1f} ms, "
        f"max {max(added) * 1000:.1f} ms; slowest check "
        f"{check_times[slowest] * 1000:.0f} ms ({slowest!r}); "
        f"RSS growth {rss_growth} kB, peak RSS growth {peak_growth} kB"
    )
    print(summary)
    for cell, seconds in sorted(check_times.items(), key=lambda item: -item[1])[:8]:
        print(f"  {seconds * 1000:7.1f} ms  {cell!r}")
    assert len(busy) >= 10, summary
    assert max(added) < MAX_ADDED_LATENCY_S, summary
    assert max(check_times.values()) < MAX_ADDED_LATENCY_S + 1.0, summary
    assert rss_growth < MAX_RSS_GROWTH_KB, summary
    assert peak_growth < MAX_RSS_GROWTH_KB, summary
