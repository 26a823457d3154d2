"""Checker time per cell on an idle kernel, for frames of 1e3 to 1e7 rows and large tensors.

Run: python benchmarks/checker_bench.py [--repeat N]
Prints median and p95 of (a) the whole probe round trip as the daemon sees it and (b) the
kernel-side checker time, per data size. Budget (DESIGN.md): p95 < 30 ms, flat in data size.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

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
images = torch.zeros({rows} // 1000, 1000)
layer = nn.Linear(1000, 10)
"""

CELLS = {
    "missing column": "df['citty'].value_counts()",
    "drop + fit": "X2 = df.drop(columns=['city', 'label'])\nmodel.fit(X2, y)\nmodel.predict(X2)",
    "unfitted predict": "model.predict(X)",
    "loop over columns": "for col in df.columns:\n    print(df[col].dtype)\n",
    "clean cell": "total = df['c0'].sum()\nmean = total / len(df)",
}
TORCH_CELLS = {"linear on tensor": "out = layer(images)"}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def measure(rows: int, repeat: int, with_torch: bool) -> None:
    async with fresh_kernel(Path(tempfile.mkdtemp())) as session:
        await session.execute(SETUP.format(rows=rows), timeout=600)
        cells = dict(CELLS)
        if with_torch:
            await session.execute(TORCH_SETUP.format(rows=rows), timeout=600)
            cells.update(TORCH_CELLS)
        await check_cell(session, "pass")  # ships the probe once
        for label, cell in cells.items():
            totals, inside = [], []
            for _ in range(repeat):
                result = await check_cell(session, cell)
                totals.append(result.timings["total_ms"])
                inside.append(result.timings.get("check_ms", 0.0))
            print(
                f"{rows:>10,d} rows  {label:18s} round trip median {statistics.median(totals):6.1f} ms"
                f"  p95 {percentile(totals, 0.95):6.1f} ms   checker median {statistics.median(inside):6.1f} ms"
                f"  p95 {percentile(inside, 0.95):6.1f} ms",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--sizes", default="1000,100000,1000000,10000000")
    parser.add_argument(
        "--torch", action="store_true", help="also time a Linear layer on a large tensor"
    )
    args = parser.parse_args()
    for rows in [int(s) for s in args.sizes.split(",")]:
        asyncio.run(measure(rows, args.repeat, args.torch))


if __name__ == "__main__":
    main()
