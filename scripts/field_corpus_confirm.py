"""Confirm the field corpus by really running every case's notebooks.

For each case folder under tests/field_corpus (or --root), in a fresh kernel with the case
folder as working directory:

- reproduced.ipynb: every cell before the last code cell runs without error, and the last
  code cell (the target) raises ``expected_exception``; the target's own line numbers on the
  traceback must contain ``crash_line`` and equal ``crash_lines``;
- fixed.ipynb: every cell runs without error.

Prints one row per case and exits 1 when any case is not confirmed. Kernels run one at a
time. This script only runs notebooks; it never calls crane-server.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ANSI = re.compile(r"\x1b\[[0-9;]*m")
FRAME = re.compile(r"Cell In\[(\d+)\], line (\d+)")
DEFAULT_ROOT = Path(__file__).resolve().parent.parent / "tests" / "field_corpus"


def run_notebook(path: Path, timeout: int) -> list[nbformat.NotebookNode]:
    """Run every cell of a notebook (errors recorded, not raised); return its code cells."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return [c for c in nb.cells if c.cell_type == "code"]


def first_error(cell: nbformat.NotebookNode) -> dict | None:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            return out
    return None


def target_lines(error: dict, execution_count: int | None) -> list[int]:
    """Line numbers of the target cell's own frames on the traceback, in order."""
    lines: list[int] = []
    for chunk in error.get("traceback", []):
        for m in FRAME.finditer(ANSI.sub("", chunk)):
            if execution_count is not None and int(m.group(1)) == execution_count:
                lines.append(int(m.group(2)))
    return lines


def confirm_case(case_dir: Path, timeout: int) -> tuple[bool, str]:
    meta = json.loads((case_dir / "case.json").read_text())
    expected = meta["expected_exception"]

    cells = run_notebook(case_dir / "reproduced.ipynb", timeout)
    if not cells:
        return False, "reproduced: no code cells"
    for i, c in enumerate(cells[:-1]):
        err = first_error(c)
        if err:
            return (
                False,
                f"reproduced: setup cell {i + 1} raised {err['ename']}: {err['evalue'][:80]}",
            )
    target = cells[-1]
    err = first_error(target)
    if err is None:
        return False, "reproduced: target ran without error"
    if err["ename"] != expected:
        return (
            False,
            f"reproduced: target raised {err['ename']} (expected {expected}): {err['evalue'][:80]}",
        )
    lines = target_lines(err, target.get("execution_count"))
    if meta["crash_line"] not in lines:
        return False, f"reproduced: crash_line {meta['crash_line']} not on traceback lines {lines}"
    if sorted(set(lines)) != sorted(set(meta.get("crash_lines", [meta["crash_line"]]))):
        return (
            False,
            f"reproduced: traceback lines {lines} != crash_lines {meta.get('crash_lines')}",
        )

    for i, c in enumerate(run_notebook(case_dir / "fixed.ipynb", timeout)):
        err = first_error(c)
        if err:
            return False, f"fixed: cell {i + 1} raised {err['ename']}: {err['evalue'][:80]}"
    return True, f"{expected} at line {meta['crash_line']}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="folder holding case folders")
    ap.add_argument("--case", default="*", help="glob on case folder names, e.g. 'pandas_*'")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per cell")
    args = ap.parse_args(argv)

    cases = sorted(
        d
        for d in args.root.iterdir()
        if d.is_dir() and (d / "case.json").exists() and fnmatch.fnmatch(d.name, args.case)
    )
    if not cases:
        print(f"no case folders match {args.case!r} under {args.root}")
        return 1
    failed = 0
    width = max(len(d.name) for d in cases)
    for d in cases:
        t0 = time.monotonic()
        try:
            ok, note = confirm_case(d, args.timeout)
        except Exception as exc:  # a kernel or notebook problem is an unconfirmed case
            ok, note = False, f"runner error: {type(exc).__name__}: {exc}"
        failed += not ok
        status = "ok  " if ok else "FAIL"
        print(f"{status} {d.name:<{width}}  {time.monotonic() - t0:5.1f}s  {note}", flush=True)
    print(f"\n{len(cases) - failed}/{len(cases)} confirmed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
