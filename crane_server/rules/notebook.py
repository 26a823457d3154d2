"""Notebook-level context for findings: re-run cells, names defined in cells that never ran."""

from __future__ import annotations

import re

from crane_server.analysis.facts import bound_names, deleted_names
from crane_server.protocol import Finding

_NAME_ERROR = re.compile(r"name '([^']+)' is not defined")


def _normal(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def annotate(
    findings: list[Finding],
    target: str,
    executed_cells: list[str] | None,
    notebook_cells: list[str] | None = None,
    target_index: int | None = None,
) -> list[Finding]:
    """Refine rule findings with what the notebook tells: re-runs, unrun or deleted names."""
    executed = executed_cells or []
    for finding in findings:
        match = _NAME_ERROR.fullmatch(finding.message) if finding.exception == "NameError" else None
        if match:
            _name_context(finding, match.group(1), executed, notebook_cells or [], target_index)
        elif finding.exception in ("KeyError", "ValueError", "AttributeError", "IndexError"):
            _rerun_context(finding, target, executed)
    return findings


def _name_context(
    finding: Finding, name: str, executed: list[str], cells: list[str], target_index: int | None
) -> None:
    for index in range(len(executed) - 1, -1, -1):
        if name in deleted_names(executed[index]):
            finding.code = "notebook-name-deleted"
            finding.evidence.facts.append(f"'{name}' was deleted by a cell that ran (`del {name}`)")
            return
    executed_normal = {_normal(cell) for cell in executed}
    for index, cell in enumerate(cells):
        if index == target_index or _normal(cell) in executed_normal:
            continue
        if name in bound_names(cell):
            finding.code = "notebook-name-not-run"
            finding.related_cell = index
            finding.evidence.facts.append(
                f"'{name}' is defined in cell {index + 1}, which has not run in this kernel"
            )
            finding.fix = f"run cell {index + 1} first"
            return


def _rerun_context(finding: Finding, target: str, executed: list[str]) -> None:
    normal = _normal(target)
    if normal and any(_normal(cell) == normal for cell in executed):
        finding.code = "notebook-rerun"
        finding.evidence.facts.append(
            "this cell already ran in this kernel: its first run changed the state it now relies on"
        )
        finding.fix = (
            finding.fix + "; " if finding.fix else ""
        ) + "do not re-run this cell, or restart and run all"
