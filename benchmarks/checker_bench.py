"""Checker time per cell on an idle kernel, for frames of 1e3 to 1e7 rows and large tensors.

Run: python benchmarks/checker_bench.py [--repeat N] [--markdown FILE] [--quick]
Prints median and p95 of (a) the whole probe round trip as the daemon sees it and (b) the
kernel-side checker time, per data size: frames of 1e3 to 1e7 rows, and tensors of 1e6 to 1e8
elements (judged on the meta device). Budget (DESIGN.md): p95 < 30 ms, flat in data size.
With --markdown FILE the table replaces the one between the checker_bench markers of FILE
(docs/measured.md), or is written as a new file. `--quick` (CI): a 1,000-row frame and a
1e6-element tensor, 3 checks per row, the table written into a temporary copy of
docs/measured.md (never the page itself); fails on errors (a check that errs), never on times.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

from measured_page import quick_page, write_table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crane_server.analysis.engine import check_cell
from crane_server.kernels.launch import fresh_kernel

SETUP = """
import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression
rng = np.random.default_rng(0)
n = {rows}
df = pd.DataFrame({{f"c{{i}}": rng.random(n) for i in range(8)}})
df["city"] = np.where(rng.random(n) > 0.5, "Oslo", "Rome")
df["label"] = (rng.random(n) > 0.5).astype(int)
X = df[[f"c{{i}}" for i in range(8)]]
y = df["label"]
model = LinearRegression()
"""
TORCH_SETUP = """
import torch
from torch import nn
images = torch.zeros({elements} // 1000, 1000)
layer = nn.Linear(1000, 10)
wrong = nn.Linear(999, 10)
"""

CELLS = {
    "missing column": "df['citty'].value_counts()",
    "drop + fit": "X2 = df.drop(columns=['city', 'label'])\nmodel.fit(X2, y)\nmodel.predict(X2)",
    "unfitted predict": "model.predict(X)",
    "loop over columns": "for col in df.columns:\n    print(df[col].dtype)\n",
    "clean cell": "total = df['c0'].sum()\nmean = total / len(df)",
}
TORCH_CELLS = {
    "linear on tensor": "out = layer(images)",
    "linear, wrong width": "out = wrong(images)",
}
Row = tuple[str, str, float, float, float, float]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def time_cells(
    session: object, size: str, cells: dict[str, str], repeat: int, rows: list[Row]
) -> None:
    """Check each cell `repeat` times; append (size, label, round trip median / p95, checker
    median / p95) to `rows` and print it. Raises when a check errs."""
    await check_cell(session, "pass")  # type: ignore[arg-type]  # ships the probe once
    for label, cell in cells.items():
        totals, inside = [], []
        for _ in range(repeat):
            result = await check_cell(session, cell)  # type: ignore[arg-type]
            if result.error is not None:
                raise RuntimeError(f"{size}, {label}: the check failed: {result.error}")
            totals.append(result.timings["total_ms"])
            inside.append(result.timings.get("check_ms", 0.0))
        row = (
            size,
            label,
            statistics.median(totals),
            percentile(totals, 0.95),
            statistics.median(inside),
            percentile(inside, 0.95),
        )
        rows.append(row)
        print(
            f"{size:>22s}  {label:20s} round trip median {row[2]:6.1f} ms  p95 {row[3]:6.1f} ms"
            f"   checker median {row[4]:6.1f} ms  p95 {row[5]:6.1f} ms",
            flush=True,
        )


async def measure(rows: int, repeat: int, table: list[Row]) -> None:
    async with fresh_kernel(Path(tempfile.mkdtemp())) as session:
        outcome = await session.execute(SETUP.format(rows=rows), timeout=600)
        if outcome.status != "ok":
            raise RuntimeError(f"setup failed: {outcome.ename}: {outcome.evalue}")
        await time_cells(session, f"{rows:,d}-row frame", CELLS, repeat, table)


async def measure_torch(elements: int, repeat: int, table: list[Row]) -> None:
    async with fresh_kernel(Path(tempfile.mkdtemp())) as session:
        outcome = await session.execute(TORCH_SETUP.format(elements=elements), timeout=600)
        if outcome.status != "ok":
            raise RuntimeError(f"torch setup failed: {outcome.ename}: {outcome.evalue}")
        await time_cells(session, f"{elements:,d}-element tensor", TORCH_CELLS, repeat, table)


def markdown(table: list[Row], repeat: int) -> str:
    lines = [
        "| data | cell | round trip median / p95 (ms) | checker median / p95 (ms) |",
        "|---|---|---|---|",
    ]
    for size, label, median, p95, inner_median, inner_p95 in table:
        lines.append(
            f"| {size} | {label} | {median:.1f} / {p95:.1f} | {inner_median:.1f} / {inner_p95:.1f} |"
        )
    lines.append("")
    lines.append(
        f"{repeat} checks per row, one idle kernel per data size, `benchmarks/checker_bench.py`."
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--sizes", default="1000,100000,1000000,10000000")
    parser.add_argument("--tensor-sizes", default="1000000,10000000,100000000")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table here")
    parser.add_argument(
        "--quick", action="store_true", help="small data, 3 checks, a copy of the page (CI)"
    )
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.sizes, args.tensor_sizes = 3, "1000", "1000000"
        args.markdown = quick_page()
    table: list[Row] = []
    for rows in [int(s) for s in args.sizes.split(",") if s]:
        asyncio.run(measure(rows, args.repeat, table))
    for elements in [int(s) for s in args.tensor_sizes.split(",") if s]:
        asyncio.run(measure_torch(elements, args.repeat, table))
    if args.markdown is not None:
        text = markdown(table, args.repeat)
        write_table(args.markdown, "checker_bench", text, quick=args.quick)


if __name__ == "__main__":
    main()
