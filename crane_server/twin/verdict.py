"""What a twin's report means: raised (a certain crash), clean, or unknown, and why."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from crane_server.protocol.dry_run import DryRun, TracebackFrame

# Exceptions a run in the twin cannot vouch for: the budget, the memory cap and the twin's
# own deeper stack make them differ from the user's run.
UNVOUCHED = {
    "SystemExit": "the cell exits the interpreter",
    "KeyboardInterrupt": "the dry run was interrupted",
    "GeneratorExit": "the dry run was interrupted",
    "MemoryError": "the cell ran out of the dry run's memory cap",
    "RecursionError": "the cell recursed past the limit (the twin's stack is deeper)",
}
# Allocation failures that libraries raise as other types (torch, TensorFlow, pandas' C code)
_ALLOCATION = re.compile(
    r"can't allocate|cannot allocate|unable to allocate|out of memory|bad_alloc|"
    r"failed to allocate|\bENOMEM\b|OOM when allocating",
    re.IGNORECASE,
)


def _unknown(reason: str, report: dict[str, Any]) -> DryRun:
    return DryRun(outcome="unknown", reason=reason, elapsed_ms=_number(report, "elapsed_ms"))


def _number(report: dict[str, Any], key: str) -> float | None:
    value = report.get(key)
    return float(value) if isinstance(value, (int, float)) else None


def read_report(report: dict[str, Any]) -> DryRun:
    """The DryRun for the kernel's `twin_collect` answer (anything odd is unknown)."""
    outcome = report.get("outcome")
    if outcome == "clean":
        return DryRun(outcome="clean", elapsed_ms=_number(report, "elapsed_ms"))
    if outcome != "raised":
        return _unknown(str(report.get("reason") or "the twin could not vouch for it"), report)
    name = str(report.get("exception") or "")
    bases = [str(base) for base in report.get("base") or [] if isinstance(base, str)]
    for base in bases or [name]:
        if base in UNVOUCHED:
            return _unknown(UNVOUCHED[base], report)
    message = str(report.get("message") or "")
    if _ALLOCATION.search(message):
        return _unknown("the cell ran out of the dry run's memory cap", report)
    line = report.get("line")
    if not isinstance(line, int) or line < 1:
        return _unknown("the exception was raised outside the cell's own lines", report)
    try:
        frames = msgspec.convert(report.get("traceback") or [], list[TracebackFrame])
    except msgspec.ValidationError:
        frames = []
    return DryRun(
        outcome="raised",
        exception=name,
        message=message,
        line=line,
        traceback=frames,
        elapsed_ms=_number(report, "elapsed_ms"),
    )


def read_cells(report: dict[str, Any]) -> list[DryRun]:
    """One DryRun per cell the twin reached, in order (the last one settled or not)."""
    entries = report.get("cells")
    if not isinstance(entries, list) or not entries:
        return [read_report(report)]
    elapsed = report.get("elapsed_ms")
    return [
        read_report({**entry, "elapsed_ms": elapsed})
        for entry in entries
        if isinstance(entry, dict)
    ]
