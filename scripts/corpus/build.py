"""The case model and the writer: a Case is one crash/fixed pair, write_case writes its folder.

In a target cell, a line ending in ``#<`` is where the failing operation is written
(crash_line), and lines ending in ``#<call`` are outer frames of the traceback (calls into
functions the cell defines), outermost first. The markers are removed from the written
notebooks.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

_MARK = re.compile(r"[ \t]*#<(call)?[ \t]*$")


@dataclass(frozen=True)
class Case:
    """One crash/fixed pair."""

    case_id: str
    library: str
    rule: str
    exception: str
    reason: str
    cells: list[str]
    target: str
    fixed_target: str | None = None
    fixed_cells: list[str] | None = None
    repro_cells: list[str] | None = None
    files: dict[str, str] = field(default_factory=dict)


def without(cells: list[str], *indices: int) -> list[str]:
    """The cells without those at `indices` (cells that were not run)."""
    return [cell for i, cell in enumerate(cells) if i not in indices]


def patched(cells: list[str], index: int, new: str) -> list[str]:
    """The cells with cell `index` replaced by `new`."""
    return [new if i == index else cell for i, cell in enumerate(cells)]


def strip_markers(source: str) -> tuple[str, int | None, list[int]]:
    """Remove the crash markers; return (source, crash_line, crash_lines)."""
    crash: int | None = None
    outer: list[int] = []
    lines = []
    for number, line in enumerate(source.strip("\n").split("\n"), start=1):
        match = _MARK.search(line)
        if match:
            line = line[: match.start()]
            if match.group(1):
                outer.append(number)
            else:
                crash = number
        lines.append(line)
    crash_lines = [*outer, crash] if crash is not None else outer
    return "\n".join(lines), crash, crash_lines


def notebook(sources: list[str], case_id: str, variant: str) -> dict[str, object]:
    """An nbformat 4.5 notebook with one code cell per source."""
    cells: list[dict[str, object]] = []
    for index, source in enumerate(sources):
        digest = hashlib.sha1(f"{case_id}/{variant}/{index}".encode()).hexdigest()[:8]
        lines = source.split("\n")
        cells.append(
            {
                "cell_type": "code",
                "execution_count": None,
                "id": digest,
                "metadata": {},
                "outputs": [],
                "source": [line + "\n" for line in lines[:-1]] + [lines[-1]],
            }
        )
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def write_case(case: Case, out: Path) -> None:
    """Write one case folder: case.json, reproduced.ipynb, fixed.ipynb and data files."""
    target, crash_line, crash_lines = strip_markers(case.target)
    if crash_line is None:
        raise ValueError(f"{case.case_id}: the target has no #< crash marker")
    fixed_target, _, _ = strip_markers(case.fixed_target or case.target)
    repro = [
        c.strip("\n") for c in (case.repro_cells if case.repro_cells is not None else case.cells)
    ]
    fixed = [
        c.strip("\n") for c in (case.fixed_cells if case.fixed_cells is not None else case.cells)
    ]
    if repro == fixed and target == fixed_target:
        raise ValueError(f"{case.case_id}: reproduced and fixed notebooks are identical")
    folder = out / case.case_id
    folder.mkdir(parents=True)
    meta = {
        "case_id": case.case_id,
        "library": case.library,
        "expected_exception": case.exception,
        "crash_line": crash_line,
        "reason": case.reason,
        "target_identical": target == fixed_target,
        "crash_lines": crash_lines,
        "rule": case.rule,
    }
    (folder / "case.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    for name, sources in (("reproduced", [*repro, target]), ("fixed", [*fixed, fixed_target])):
        text = json.dumps(notebook(sources, case.case_id, name), indent=1, ensure_ascii=False)
        (folder / f"{name}.ipynb").write_text(text + "\n", encoding="utf-8")
    for name, content in case.files.items():
        (folder / name).write_text(content, encoding="utf-8")
