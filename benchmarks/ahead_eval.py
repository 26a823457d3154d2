"""Lookahead on crash/fix notebook pairs: with only the first code cell run, is the target
cell's crash predicted before anything else runs, and is a fixed notebook ever flagged?

Each case folder holds `reproduced.ipynb` (crashes at its target cell) and `fixed.ipynb`
(runs); see DESIGN.md for the format. For each, `check_ahead(run_first=1)` walks every later
cell in order without running it. Counted: crashes of the reproduced notebook predicted at the
target cell (recall), how many cells ahead of the crash the warning stood, and Errors
anywhere in a fixed notebook (false alarms: must be zero).

    python benchmarks/ahead_eval.py DATASET [--split validation] [--dry-run] [--json out.json]
        [--quick]

With `--dry-run`, one sealed twin also runs the pending cells in order (as `check --ahead`
does by default); where it stops without a verdict is counted, and a stop on a cell that
writes a file (by its source: to_csv, savefig, open(..., 'w'), ...) is counted apart: that
is the known limit a scratch overlay of the notebook's folder would lift.

As the language server does, pending cells that first import a library are walked by a
helper interpreter. `--quick` (CI): three tests/corpus cases (vendored here) unless DATASET is
given; exit status 1 when a notebook could not be judged (an error), never on times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
from pathlib import Path

from measured_page import quick_dataset

from crane_server.commands.check_ahead import AHEAD_BUDGET_S, check_ahead
from crane_server.errors import CraneError
from crane_server.kernels.helper import HelperPool
from crane_server.kernels.notebook_run import read_code_cells
from crane_server.twin import DryRunOptions

# Calls that write a file (a measurement heuristic on the stopping cell's source only).
WRITES_A_FILE = re.compile(
    r"\.to_(csv|parquet|pickle|json|excel|feather|hdf|sql)\(|savefig\(|\.save\(|np\.save|"
    r"open\([^)]*['\"][wax]b?\+?['\"]|\.write_text\(|\.write_bytes\(|\bdump\(|mkdir\(|makedirs\("
)


def target_cell(case: Path) -> int:
    """The 1-based code cell the reproduced notebook crashes in (default: the last)."""
    meta = json.loads((case / "case.json").read_text(encoding="utf-8"))
    cells = read_code_cells(case / "reproduced.ipynb")
    index = meta.get("target_cell")
    return (index + 1) if isinstance(index, int) else len(cells)


STOPS: list[dict[str, object]] = []


async def judge(
    path: Path, helpers: HelperPool | None = None, dry_run: bool = False
) -> tuple[list[int], str | None]:
    """(cells with a predicted Error, error text) of one notebook; twin stops go to STOPS."""
    options = DryRunOptions(wall_s=AHEAD_BUDGET_S) if dry_run else None
    try:
        report = await check_ahead(
            path, run_first=1, timeout=120.0, helpers=helpers, dry_run=options
        )
    except CraneError as exc:
        return [], str(exc)
    flagged = [
        r.cell
        for r in report.results
        if r.cell is not None and any(f.severity == "error" for f in r.findings)
    ]
    if report.twin_stopped_at is not None:
        source = read_code_cells(path)[report.twin_stopped_at - 1]
        STOPS.append(
            {
                "notebook": f"{path.parent.name}/{path.name}",
                "cell": report.twin_stopped_at,
                "reason": report.twin_stop_reason,
                "writes_a_file": bool(WRITES_A_FILE.search(source)),
            }
        )
    return flagged, report.error


def selected_cases(dataset: Path, split: str | None) -> list[Path]:
    """The case folders of DATASET, or only those DATASET/SPLIT.json lists under `split`."""
    cases = sorted(p for p in dataset.iterdir() if (p / "case.json").is_file())
    if split is None:
        return cases
    listed = set(json.loads((dataset / "SPLIT.json").read_text(encoding="utf-8"))[split])
    return [case for case in cases if case.name in listed]


async def main_async(
    dataset: Path, split: str | None = None, dry_run: bool = False
) -> dict[str, object]:
    async with HelperPool() as helpers:
        return await _evaluate(selected_cases(dataset, split), helpers, dry_run)


async def _evaluate(cases: list[Path], helpers: HelperPool, dry_run: bool) -> dict[str, object]:
    hits, misses, false_alarms, errors, lead = [], [], [], [], []
    by_library: dict[str, list[int]] = {}
    for case in cases:
        target = target_cell(case)
        library = str(json.loads((case / "case.json").read_text(encoding="utf-8")).get("library"))
        flagged, error = await judge(case / "reproduced.ipynb", helpers, dry_run)
        if error:
            errors.append(f"{case.name}/reproduced: {error}")
        counted = by_library.setdefault(library, [0, 0])
        counted[1] += 1
        if target in flagged:
            hits.append(case.name)
            lead.append(target - 1)  # cells between the one that ran and the crash
            counted[0] += 1
        else:
            misses.append(case.name)
        fixed_flagged, fixed_error = await judge(case / "fixed.ipynb", helpers, dry_run)
        if fixed_error:
            errors.append(f"{case.name}/fixed: {fixed_error}")
        if fixed_flagged:
            false_alarms.append(f"{case.name}: cells {fixed_flagged}")
        print(f"{case.name}: target {target}, reproduced flagged {flagged}, fixed {fixed_flagged}")
    return {
        "cases": len(cases),
        "predicted_ahead": len(hits),
        "recall": len(hits) / len(cases) if cases else 0.0,
        "false_alarms_on_fixed": false_alarms,
        "cells_ahead_median": statistics.median(lead) if lead else None,
        "by_library": {name: {"predicted": h, "cases": n} for name, (h, n) in by_library.items()},
        "dry_run": dry_run,
        "twin_stops": len(STOPS),
        "twin_stops_on_a_file_write": sum(1 for stop in STOPS if stop["writes_a_file"]),
        "twin_stop_list": STOPS,
        "hits": hits,
        "misses": misses,
        "errors": errors,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset", type=Path, nargs="?", default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--split", default=None, help="only the cases SPLIT.json lists under it")
    parser.add_argument("--quick", action="store_true", help="3 tests/corpus cases (CI)")
    parser.add_argument("--dry-run", action="store_true", help="run the pending cells in a twin")
    args = parser.parse_args()
    if args.quick and args.dataset is None:
        args.dataset = quick_dataset()
    if args.dataset is None:
        parser.error("DATASET is required (or --quick)")
    summary = asyncio.run(main_async(args.dataset, args.split, args.dry_run))
    print(
        f"predicted ahead {summary['predicted_ahead']}/{summary['cases']} "
        f"(recall {summary['recall']:.3f}), false alarms on fixed notebooks: "
        f"{len(summary['false_alarms_on_fixed'])}, median cells ahead: "
        f"{summary['cells_ahead_median']}"
    )
    if args.dry_run:
        print(
            f"twin stops: {summary['twin_stops']} "
            f"(on a cell writing a file: {summary['twin_stops_on_a_file_write']})"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    errors = summary["errors"]
    assert isinstance(errors, list)
    for error in errors:
        print(f"error: {error}")
    if args.quick and (errors or not summary["cases"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
