"""What a check costs on frames beyond pandas: polars and Dask cells over 1e8-row plans.

Run: python benchmarks/frames_cost.py [--repeat N] [--markdown FILE] [--quick]
A kernel holds a polars LazyFrame of 1e8 rows, an eager polars DataFrame of 1e6 rows and a
Dask DataFrame of 1e8 rows in 1,000 partitions. Each cell (a crash the checker finds from the
schema, and a clean one) is checked N times; the kernel-side checker time is what the user's
kernel spends. A tripwire counts every polars collect and Dask compute during the checks and
the run fails unless it stays 0 (a real collect and compute in the setup
show that it counts). Goal (issue 28): <= 20 ms of kernel time per check.
With --markdown FILE the table replaces the one between the frames_cost markers of FILE
(docs/measured.md). `--quick` (CI): 2 checks per cell, a copy of the page; fails on errors
and on a tripped tripwire, never on times.
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
import polars as pl
import numpy as np
huge = pl.LazyFrame().select(pl.int_range(0, 100_000_000).alias("id")).with_columns(
    region=pl.lit("n"), revenue=pl.col("id") * 2
)
sales = pl.DataFrame({"id": np.arange(1_000_000), "region": ["n", "s"] * 500_000})
_touches = [0]
def _count(original):
    def counted(*args, **kwargs):
        _touches[0] += 1
        return original(*args, **kwargs)
    return counted
pl.LazyFrame.collect = _count(pl.LazyFrame.collect)
pl.collect_all = _count(pl.collect_all)
try:
    import dask
    import dask.dataframe as dd
    import pandas as pd
    ddf = dd.from_pandas(pd.DataFrame({"id": np.arange(1000), "region": ["n"] * 1000}),
                         npartitions=1)
    ddf = dd.from_map(lambda i: pd.DataFrame({"id": np.arange(i * 10**5, (i + 1) * 10**5),
                                              "region": "n"}), range(1000), meta=ddf._meta)
    import dask.base
    dask.base.compute = _count(dask.base.compute)
    dd.DataFrame.compute = _count(dd.DataFrame.compute)
    HAVE_DASK = True
except ImportError:
    HAVE_DASK = False
# the control: a real collect (and compute) trips the counter, which then starts from 0
huge.head(1).collect()
if HAVE_DASK:
    ddf.id.sum().compute()
assert _touches[0] == 1 + HAVE_DASK, _touches
_touches[0] = 0
"""
POLARS_CELLS = {
    "polars lazy: select a misspelt column, 1e8 rows": (
        "out = huge.select(pl.col('revenu')).collect()"
    ),
    "polars lazy: filter + group_by + agg chain, 1e8 rows": (
        "out = (huge.filter(pl.col('region') == 'n').group_by('region')"
        ".agg(pl.col('revenue').sum()).collect())"
    ),
    "polars eager: sum of a string column, 1e6 rows": (
        "t = sales.group_by('region').agg(pl.col('region').sum())"
    ),
    "polars eager: join on keys of different dtypes": (
        "j = sales.join(sales.with_columns(pl.col('id').cast(pl.String)), on='id')"
    ),
}
DASK_CELLS = {
    "Dask: a misspelt column, 1e8 rows in 1,000 partitions": "s = ddf['regoin']",
    "Dask: group by + mean, 1e8 rows": "m = ddf.groupby('region').id.mean()",
}


async def kernel_value(session: KernelSession, expression: str) -> str:
    """The str of `expression` in the benchmark's kernel (written to a file by a cell)."""
    out = Path(tempfile.mkdtemp()) / "value.txt"
    code = f"open({str(out)!r}, 'w').write(str({expression}))"
    outcome = await session.execute(code, timeout=60)
    if outcome.status != "ok":
        raise RuntimeError(f"reading {expression}: {outcome.ename}: {outcome.evalue}")
    return out.read_text()


async def measure(repeat: int) -> list[Row]:
    rows: list[Row] = []
    async with fresh_kernel(Path(tempfile.mkdtemp())) as session:
        outcome = await session.execute(SETUP, timeout=600)
        if outcome.status != "ok":
            raise RuntimeError(f"setup failed: {outcome.ename}: {outcome.evalue}")
        await time_cells(session, "polars", POLARS_CELLS, repeat, rows)
        if await kernel_value(session, "HAVE_DASK") == "True":
            await time_cells(session, "dask", DASK_CELLS, repeat, rows)
        counted = int(await kernel_value(session, "_touches[0]"))
        if counted:
            raise RuntimeError(f"the checks collected or computed {counted} times")
        print("collects and computes during the checks: 0", flush=True)
    return rows


def markdown(rows: list[Row], repeat: int) -> str:
    lines = [
        "| cell | check round trip median / p95 (ms) | checker median / p95 (ms) |",
        "|---|---|---|",
    ]
    for _size, label, median, p95, inner_median, inner_p95 in rows:
        lines.append(
            f"| {label} | {median:.1f} / {p95:.1f} | {inner_median:.1f} / {inner_p95:.1f} |"
        )
    lines.append("")
    lines.append(
        f"{repeat} checks per cell on one idle kernel; collects and computes counted during "
        "the checks: 0. `benchmarks/frames_cost.py`."
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table here")
    parser.add_argument(
        "--quick", action="store_true", help="2 checks per cell, a copy of the page (CI)"
    )
    args = parser.parse_args()
    if args.quick:
        args.repeat = 2
        args.markdown = quick_page()
    rows = asyncio.run(measure(args.repeat))
    if args.markdown is not None:
        write_table(args.markdown, "frames_cost", markdown(rows, args.repeat), quick=args.quick)


if __name__ == "__main__":
    main()
