"""Notebook-level context for findings: re-runs, waiting for cells above, unrun or deleted names.

A name the kernel lacks but a code cell above the target binds (and that cell has not run) is
not a crash of a notebook run in order: it becomes a quiet Hint "waiting for cell N". A name
bound only below the target, or nowhere, stays an Error.
"""

from __future__ import annotations

import re

import msgspec

from crane_server.analysis.facts import bound_names, cell_facts, deleted_names
from crane_server.protocol import Finding

_NAME_ERROR = re.compile(r"name '([^']+)' is not defined")
WAITING = "notebook-waiting"
NOT_RUN_BELOW = "notebook-name-below"
DELETED = "notebook-name-deleted"
#: Codes whose text names a cell by number (renumbered for the editor by `renumber`).
NUMBERED = (WAITING, NOT_RUN_BELOW)


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


def _star_import(source: str) -> bool:
    try:
        return cell_facts(source).star_import
    except SyntaxError:
        return False


def _name_context(
    finding: Finding, name: str, executed: list[str], cells: list[str], target_index: int | None
) -> None:
    for index in range(len(executed) - 1, -1, -1):
        if name in deleted_names(executed[index]):
            finding.code = DELETED
            finding.evidence.facts.append(f"'{name}' was deleted by a cell that ran (`del {name}`)")
            return
    executed_normal = {_normal(cell) for cell in executed}
    above = len(cells) if target_index is None else target_index
    waiting: int | None = None
    for index in range(min(above, len(cells))):
        cell = cells[index]
        if _normal(cell) in executed_normal:
            continue
        if name in bound_names(cell) or _star_import(cell):
            waiting = index  # the last unrun cell above that may bind it
    if waiting is not None:
        _wait_for(finding, name, waiting)
        return
    if target_index is None:
        return
    for index in range(target_index + 1, len(cells)):
        if name in bound_names(cells[index]):
            finding.code = NOT_RUN_BELOW
            finding.related_cell = index
            finding.evidence.facts.append(
                f"'{name}' is defined only in cell {index + 1}, below this cell"
            )
            finding.fix = f"move cell {index + 1} above this cell, or define '{name}' here"
            return


def _wait_for(finding: Finding, name: str, index: int) -> None:
    """Turn a NameError into a Hint: a cell above, not yet run, binds the name."""
    finding.code = WAITING
    finding.severity = "hint"
    finding.related_cell = index
    finding.message = f"waiting for cell {index + 1} (it defines '{name}')"
    finding.evidence.facts = [f"'{name}' is defined in cell {index + 1}, which has not run yet"]
    finding.fix = f"run cell {index + 1} first"


def renumber(finding: Finding, number: int) -> Finding:
    """A copy of a numbered finding naming its related cell `number` (as the editor counts)."""
    if finding.code not in NUMBERED or finding.related_cell is None:
        return finding
    old = re.compile(rf"\bcell {finding.related_cell + 1}\b")
    new = f"cell {number}"
    evidence = type(finding.evidence)(
        facts=[old.sub(new, fact) for fact in finding.evidence.facts],
        closest=finding.evidence.closest,
        based_on_last_snapshot=finding.evidence.based_on_last_snapshot,
    )
    return msgspec.structs.replace(
        finding,
        message=old.sub(new, finding.message),
        fix=old.sub(new, finding.fix) if finding.fix else finding.fix,
        evidence=evidence,
    )


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
