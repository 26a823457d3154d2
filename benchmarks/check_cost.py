"""What the worst cells cost the kernel per check: a catastrophic regex and heavy C work.

Run: python benchmarks/check_cost.py [--repeat N] [--markdown FILE] [--quick]
Before: the time the kernel would spend if a check evaluated the cell's regular expression
(`s.str.contains(r'(a+)+$')` on one string of n 'a's and a '!'), measured directly in the
kernel for small n (each two more characters cost about four times as much; 26 characters
took 4.7 s when the checker still evaluated it) and extrapolated to 26 and 30. After: the
check's round trip and the kernel-side checker time for that cell at 26 and 30 characters,
and for heavy cells (huge integers, arrays, sorts, products, a merge of two 2e6-row frames)
that would take seconds to minutes or gigabytes if evaluated. Goal (issue 29): <= 50 ms of
kernel time per check whatever the cell. With --markdown FILE the table replaces the one
between the check_cost markers of FILE (docs/measured.md). `--quick` (CI): 2 checks per
cell, smaller direct regex timings, a copy of the page; fails on errors, never on times.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from checker_bench import Row, time_cells
from measured_page import quick_page, write_table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crane_server.kernels.launch import fresh_kernel
from crane_server.kernels.session import KernelSession

SETUP = """
import itertools, math, re, time
import numpy as np
import pandas as pd
n = 2_000_000
left = pd.DataFrame({"k": np.arange(n) % 1000, "v": np.arange(n, dtype=float)})
right = pd.DataFrame({"k": np.arange(n) % 1000, "w": np.arange(n, dtype=float)})
big = np.ones((3000, 3000))
s26 = pd.Series(["a" * 26 + "!"])
s30 = pd.Series(["a" * 30 + "!"])
"""
CELLS = {
    "regex `(a+)+$` on 26 characters": "hits = s26.str.contains(r'(a+)+$')",
    "regex `(a+)+$` on 30 characters": "hits = s30.str.contains(r'(a+)+$')",
    "`10 ** (10 ** 7)`": "x = 10 ** (10 ** 7)",
    "`math.factorial(10**7)`": "f = math.factorial(10**7)",
    "`'x' * 10**10`": "w = 'x' * 10**10",
    "`np.ones((16000, 16000))`": "z = np.ones((16000, 16000))",
    "`big @ big` (3000 x 3000)": "p = big @ big",
    "`np.linalg.inv(big)`": "q = np.linalg.inv(big)",
    "`sorted(range(10**8))`": "s = sorted(range(10**8))",
    "`itertools.product(range(1000), repeat=4)`": (
        "p4 = list(itertools.product(range(1000), repeat=4))"
    ),
    "merge of two 2e6-row frames on a 1,000-value key": "m = pd.merge(left, right, on='k')",
}
# seconds of one match of `(a+)+$` on n 'a's + '!', timed in the kernel by the kernel
DIRECT = (
    "t0 = time.perf_counter(); pd.Series(['a' * {n} + '!']).str.contains(r'(a+)+$'); "
    "open({out!r}, 'w').write(repr(time.perf_counter() - t0))"
)


async def direct_regex(session: KernelSession, lengths: list[int]) -> dict[int, float]:
    """Seconds one unguarded match takes in the kernel, per string length."""
    seconds: dict[int, float] = {}
    out = Path(tempfile.mkdtemp()) / "seconds.txt"
    for n in lengths:
        outcome = await session.execute(DIRECT.format(n=n, out=str(out)), timeout=300)
        if outcome.status != "ok":
            raise RuntimeError(f"direct regex at {n}: {outcome.ename}: {outcome.evalue}")
        seconds[n] = float(out.read_text())
        print(f"direct match, {n} characters: {seconds[n] * 1000:9.1f} ms", flush=True)
    return seconds


async def measure(repeat: int, lengths: list[int]) -> tuple[list[Row], dict[int, float]]:
    rows: list[Row] = []
    async with fresh_kernel(Path(tempfile.mkdtemp())) as session:
        outcome = await session.execute(SETUP, timeout=600)
        if outcome.status != "ok":
            raise RuntimeError(f"setup failed: {outcome.ename}: {outcome.evalue}")
        direct = await direct_regex(session, lengths)
        await time_cells(session, "worst cells", CELLS, repeat, rows)
    return rows, direct


def extrapolated(direct: dict[int, float], n: int) -> float:
    """Seconds at `n` characters, from the longest measured length and the measured growth."""
    lengths = sorted(direct)
    last, before = lengths[-1], lengths[-2]
    growth = (direct[last] / direct[before]) ** (1.0 / (last - before))
    return direct[last] * growth ** (n - last)


def markdown(rows: list[Row], direct: dict[int, float], repeat: int) -> str:
    lengths = sorted(direct)
    measured = ", ".join(f"{n}: {direct[n] * 1000:.0f} ms" for n in lengths)
    growth = (direct[lengths[-1]] / direct[lengths[-2]]) ** (2.0 / (lengths[-1] - lengths[-2]))
    lines = [
        "| cell | kernel time if evaluated (before) | check round trip median / p95 (ms) "
        "| checker median / p95 (ms) |",
        "|---|---|---|---|",
    ]
    for _size, label, median, p95, inner_median, inner_p95 in rows:
        before = "seconds to minutes, or gigabytes"
        for n in (26, 30):
            if f"on {n} characters" in label:
                before = f"~{extrapolated(direct, n):.0f} s (extrapolated)"
        lines.append(
            f"| {label} | {before} | {median:.1f} / {p95:.1f} | {inner_median:.1f} / {inner_p95:.1f} |"
        )
    lines.append("")
    lines.append(
        f"One match of `(a+)+$` timed directly in the kernel ({measured}; x{growth:.1f} per two "
        f"more characters). {repeat} checks per cell on one idle kernel, "
        "`benchmarks/check_cost.py`."
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--lengths", default="16,18,20,22", help="direct regex timings")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table here")
    parser.add_argument(
        "--quick", action="store_true", help="2 checks per cell, a copy of the page (CI)"
    )
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.lengths = 2, "14,16"
        args.markdown = quick_page()
    rows, direct = asyncio.run(measure(args.repeat, [int(n) for n in args.lengths.split(",")]))
    if args.markdown is not None:
        text = markdown(rows, direct, args.repeat)
        write_table(args.markdown, "check_cost", text, quick=args.quick)


if __name__ == "__main__":
    main()
