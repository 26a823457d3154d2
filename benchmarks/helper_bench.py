"""What the helper interpreter costs: a cell that first imports a scikit-learn module,
checked against a kernel that loaded only numpy and pandas.

Run: python benchmarks/helper_bench.py [--repeat 30] [--rows 100000] [--quick]
Prints the first check (the helper starts and imports the library), then median and p95 (ms)
of later checks with the helper warm, beside the kernel's own check of the same cell (no
helper: the first import is not judged) and of a cell that imports nothing new. Also the
helper's resident memory once warm. `--quick` (CI): 3 checks per row on a 1,000-row frame;
fails on errors, never on times.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from crane_server.analysis.engine import check_cell
from crane_server.kernels.helper import HelperPool
from crane_server.kernels.launch import fresh_kernel
from crane_server.kernels.session import KernelSession

SETUP = """
import numpy as np
import pandas as pd
rng = np.random.default_rng(0)
frame = pd.DataFrame({{"age": rng.normal(40, 9, {rows}), "fare": rng.gamma(2, 9, {rows})}})
frame.loc[::7, "age"] = np.nan
target = (frame["fare"] > 15).astype(int)
"""
FIRST_IMPORT = (
    "from sklearn.linear_model import LogisticRegression\n"
    "model = LogisticRegression()\n"
    "model.fit(frame[['age', 'fare']], target)\n"
)
PLAIN = "ratio = frame['age'] / frame['fare']\nratio.describe()\n"


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


async def _timed(session: KernelSession, cell: str, helpers: HelperPool | None) -> float:
    started = time.perf_counter()
    result = await check_cell(session, cell, helpers=helpers)
    elapsed = (time.perf_counter() - started) * 1000.0
    assert result.error is None, result.error
    return elapsed


def _rss_mb(pid: int | None) -> float | None:
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


async def main(repeat: int, rows: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        async with fresh_kernel(Path(folder)) as session:
            outcome = await session.execute(SETUP.format(rows=rows), timeout=120)
            assert outcome.status == "ok", outcome
            await check_cell(session, PLAIN)  # ship the probe
            async with HelperPool() as helpers:
                first = await _timed(session, FIRST_IMPORT, helpers)
                warm = [await _timed(session, FIRST_IMPORT, helpers) for _ in range(repeat)]
                (helper,) = helpers._helpers.values()
                rss = _rss_mb(helper.pid)
            alone = [await _timed(session, FIRST_IMPORT, None) for _ in range(repeat)]
            plain = [await _timed(session, PLAIN, None) for _ in range(repeat)]
    print(f"frame of {rows:,} rows; {repeat} checks per row; times in ms")
    print("| check | median | p95 |")
    print("|---|---:|---:|")
    print(f"| first-import cell, helper cold (starts, imports scikit-learn) | {first:.0f} | |")
    print(f"| first-import cell, helper warm | {statistics.median(warm):.1f} | {_p95(warm):.1f} |")
    print(
        f"| first-import cell, kernel only (not judged) | {statistics.median(alone):.1f} "
        f"| {_p95(alone):.1f} |"
    )
    print(f"| plain cell, kernel only | {statistics.median(plain):.1f} | {_p95(plain):.1f} |")
    if rss is not None:
        print(f"helper resident memory when warm: {rss:.0f} MB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="3 checks, 1,000 rows (CI)")
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.rows = 3, 1_000
    asyncio.run(main(args.repeat, args.rows))
