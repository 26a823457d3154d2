"""Snapshot time in a real kernel, through the real transport, as the data grows.

Starts one ipykernel, creates DataFrames of 1e3 .. 1e7 rows (10 mixed-dtype columns) and a
namespace of 100 assorted variables, then times `summarise` round trips (send the silent
execute_request, wait for its reply) many times and prints the median and p95 per case.
The budget (DESIGN.md) is p95 < 30 ms on an idle kernel, flat in the size of the data.

    python benchmarks/snapshot_bench.py [--repeat 200] [--json] [--quick]

`--quick` (CI): frames of 1e3 and 1e4 rows, 5 repetitions; fails on errors, never on times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from crane_server.kernels.probe_transport import (  # noqa: E402
    build_probe_content,
    decode_probe_reply,
)
from tests.conftest import RunningKernel  # noqa: E402

SIZES = (10**3, 10**4, 10**5, 10**6, 10**7)

MAKE_FRAME = """
import numpy as np, pandas as pd
def _bench_frame(n):
    rng = np.random.default_rng(0)
    f = rng.random(n); f[::97] = np.nan
    return pd.DataFrame({
        "id": np.arange(n), "i1": rng.integers(0, 100, n), "i2": rng.integers(-5, 5, n),
        "f1": f, "f2": rng.normal(size=n), "f3": rng.random(n).astype("float32"),
        "s1": np.array(["alpha", "beta", "gamma", None] * (n // 4) + ["x"] * (n % 4), dtype=object),
        "s2": np.array(["a", "b"] * (n // 2) + ["c"] * (n % 2), dtype=object),
        "c": pd.Categorical(["p", "q", "r"] * (n // 3) + ["p"] * (n % 3)),
        "t": pd.date_range("2020-01-01", periods=n, freq="min"),
    })
"""

MAKE_NAMESPACE = """
import numpy as np, pandas as pd
_kinds = [
    lambda i: i, lambda i: float(i) / 3, lambda i: "text %d" % i, lambda i: list(range(i % 50)),
    lambda i: {"k%d" % j: j for j in range(i % 30)}, lambda i: np.arange(1000 * (i + 1)),
    lambda i: np.random.default_rng(i).random((100, 10)),
    lambda i: pd.DataFrame({"a": np.arange(1000), "b": np.arange(1000) * 0.5}),
    lambda i: pd.Series(np.arange(500)), lambda i: (lambda x, y=1: x + y),
]
for _i in range(100):
    globals()["v%03d" % _i] = _kinds[_i % len(_kinds)](_i)
del _i
"""


def _probe(
    kernel: RunningKernel, payload: dict[str, Any], op: str = "summarise", timeout: float = 60
) -> Any:
    message = kernel.client.session.msg("execute_request", build_probe_content(op, payload))
    kernel.client.shell_channel.send(message)
    while True:
        reply = kernel.client.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == message["header"]["msg_id"]:
            return decode_probe_reply(reply["content"])


def _kernel_cpu_seconds(pid: int | None) -> float:
    """User+system CPU time of the kernel process (Linux /proc), 0.0 where unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _time(
    kernel: RunningKernel, payload: dict[str, Any], repeat: int, op: str = "summarise"
) -> dict[str, float]:
    _probe(kernel, payload, op)  # warm up (installs the probe on the first call)
    round_trips, in_kernel = [], []
    pid = getattr(getattr(kernel.manager, "provisioner", None), "pid", None)
    cpu_before = _kernel_cpu_seconds(pid)
    for _ in range(repeat):
        started = time.perf_counter()
        snapshot = _probe(kernel, payload, op)
        round_trips.append((time.perf_counter() - started) * 1000)
        in_kernel.append(float(snapshot.get("elapsed_ms") or 0.0))
    cpu_ms = (_kernel_cpu_seconds(pid) - cpu_before) * 1000 / repeat
    return {
        "kernel_cpu_ms_per_probe": cpu_ms,
        "median_ms": statistics.median(round_trips),
        "p95_ms": _p95(round_trips),
        "max_ms": max(round_trips),
        "in_kernel_median_ms": statistics.median(in_kernel),
        "in_kernel_p95_ms": _p95(in_kernel),
    }


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true", help="small frames, 5 repetitions (CI)")
    args = parser.parse_args()
    sizes = SIZES[:2] if args.quick else SIZES
    if args.quick:
        args.repeat = 5
    results: dict[str, dict[str, float]] = {}
    kernel = RunningKernel(Path(tempfile.mkdtemp(prefix="crane-bench-")))
    try:
        assert kernel.execute(MAKE_FRAME)["status"] == "ok"
        results["ping (transport only)"] = _time(kernel, {}, args.repeat, op="ping")
        for size in sizes:
            code = f"df = _bench_frame({size})"
            assert kernel.execute(code, timeout=600)["status"] == "ok"
            results[f"dataframe {size:.0e} rows"] = _time(kernel, {"names": ["df"]}, args.repeat)
        assert kernel.execute("del df")["status"] == "ok"
        assert kernel.execute(MAKE_NAMESPACE)["status"] == "ok"
        names = [f"v{i:03d}" for i in range(100)]
        results["namespace of 100 variables"] = _time(kernel, {"names": names}, args.repeat)
    finally:
        kernel.shutdown()
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    load = os.getloadavg()
    print(f"repeat={args.repeat}  cpus={os.cpu_count()}  load average={load[0]:.2f}")
    print(
        f"{'case':30} {'median':>7} {'p95':>7} {'max':>7} {'in-kernel p95':>14}"
        f" {'kernel CPU/probe':>17}  (ms; round trip unless noted)"
    )
    for case, row in results.items():
        print(
            f"{case:30} {row['median_ms']:7.2f} {row['p95_ms']:7.2f} {row['max_ms']:7.2f}"
            f" {row['in_kernel_p95_ms']:14.2f} {row['kernel_cpu_ms_per_probe']:17.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
