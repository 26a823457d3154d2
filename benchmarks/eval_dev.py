"""Run `crane-server eval --engine rules` on a dataset and confirm it agrees with `check`.

    python benchmarks/eval_dev.py [DATASET] [--out DIR] [--jobs J] [--quick]

Runs the evaluation (report in OUT/report.md), then `crane-server check --json` on every
notebook variant one by one, and prints every case where the two disagree on the crash
verdict, the exception or the line. Exit status 1 when they disagree anywhere. DATASET defaults
to ../shared/bench/dev (JunoBench dev, beside this repository; not in it). `--quick` (CI):
three tests/corpus cases (vendored here) unless DATASET is given, the report in a temporary
folder; fails on errors and disagreements, never on times.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import msgspec
from measured_page import quick_dataset

from crane_server.protocol.eval import ResultRow

ROOT = Path(__file__).resolve().parents[1]


def check_one(notebook: Path) -> tuple[bool | None, str | None, int | None]:
    """(crash, exception, line) from `crane-server check --json`; None crash on exit status 2."""
    done = subprocess.run(
        [sys.executable, "-m", "crane_server", "check", str(notebook), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode == 2:
        return None, None, None
    result = json.loads(done.stdout)
    errors = [f for f in result.get("findings", []) if f.get("severity", "error") == "error"]
    first = errors[0] if errors else {}
    return bool(result["crash"] and errors), first.get("exception"), first.get("line")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dataset", nargs="?", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--quick", action="store_true", help="3 tests/corpus cases, a temporary report (CI)"
    )
    args = parser.parse_args()
    if args.quick:
        args.dataset = args.dataset or quick_dataset()
        args.out = args.out or Path(tempfile.mkdtemp(prefix="crane-bench-eval-"))
    args.dataset = args.dataset or ROOT.parent / "shared/bench/dev"
    args.out = args.out or ROOT / "benchmarks/out/eval_dev"
    if not args.dataset.is_dir():
        parser.error(f"no dataset folder {args.dataset}")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "crane_server",
            "eval",
            str(args.dataset),
            "--engine",
            "rules",
            "--out",
            str(args.out),
            "--jobs",
            str(args.jobs),
            *(["--no-plots"] if args.quick else []),
        ],
        check=True,
    )
    decoder = msgspec.json.Decoder(ResultRow)
    rows = [
        decoder.decode(line)
        for line in (args.out / "results.jsonl").read_bytes().splitlines()
        if line.strip()
    ]
    if not rows:
        print(f"no result rows in {args.out / 'results.jsonl'}")
        return 1
    disagreements = 0
    for row in sorted((r for r in rows if r.engine == "rules"), key=lambda r: r.key()):
        notebook = args.dataset / row.case_id / f"{row.variant}.ipynb"
        if not notebook.is_file():
            continue
        checked = check_one(notebook)
        evaluated = (row.crash, row.exception, row.line) if row.status == "ok" else (None,) * 3
        if checked != evaluated:
            disagreements += 1
            print(f"{row.case_id} {row.variant}: eval {evaluated} != check {checked}")
    print(f"{len(rows)} rows compared with `check`: {disagreements} disagreements")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
