"""Turn findings about cells into LSP diagnostics placed on the lines the editor shows."""

from __future__ import annotations

from typing import Any

import msgspec
from lsprotocol import types

from crane_server.analysis.notebook_rules import renumber
from crane_server.documents import Cell, CellDocument
from crane_server.protocol import Finding

SEVERITIES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
CRANE_SOURCES = ("crane", "crane-llm")


EVIDENCE_CHARS = 200
EVIDENCE_LINES = 2


def evidence_text(finding: Finding, limit: int = EVIDENCE_CHARS) -> str:
    """The first evidence lines that make the finding actionable (the closest name first).

    Clients show only the message (never `data`), so the facts travel in the text.
    """
    facts = [fact.strip() for fact in finding.evidence.facts if fact.strip()]
    closest = finding.evidence.closest
    if closest:
        # The closest existing name is the most actionable fact: it leads (narrow editors cut).
        naming = sorted((f for f in facts if closest in f), key=len) or [f"closest: {closest!r}"]
        facts = naming[:1] + [fact for fact in facts if fact not in naming[:1]]
    chosen = facts[:EVIDENCE_LINES]
    share = limit // max(len(chosen), 1)
    lines = [
        fact if len(fact) <= share else fact[: share - 1].rstrip() + "\u2026" for fact in chosen
    ]
    return "\n".join(lines)


def _message(finding: Finding, *, executed: bool) -> str:
    text = finding.message
    quiet = finding.severity == "hint"
    if finding.exception and not quiet and not text.startswith(finding.exception):
        text = f"{finding.exception}: {text}"
    if executed:
        text = f"This cell already ran; re-running it now would raise {text}"
    evidence = "" if quiet else evidence_text(finding)
    if evidence:
        text = f"{text}\n{evidence}"
    if finding.fix and not quiet:
        text = f"{text}\nFix: {finding.fix}"
    return text


def _line_length(cell: Cell, line: int) -> int:
    lines = cell.text.split("\n")
    return len(lines[line]) if 0 <= line < len(lines) else 0


def finding_range(
    document: CellDocument, cell: Cell, finding: Finding
) -> tuple[str, types.Range] | None:
    """Return where a finding shows: (URI, range), or None if its line is not in the cell."""
    line = max(finding.line - 1, 0)
    start = document.locate(cell, line)
    if start is None:
        return None
    end_line = max((finding.end_line or finding.line) - 1, line)
    end = document.locate(cell, end_line) or start
    end_column = finding.end_column
    if end_column is None or (end_line == line and end_column <= finding.column):
        end_column = max(_line_length(cell, end_line), finding.column + 1)
    return start[0], types.Range(
        start=types.Position(line=start[1], character=max(finding.column, 0)),
        end=types.Position(line=end[1], character=end_column),
    )


def _cause_location(
    document: CellDocument, cause: Cell
) -> list[types.DiagnosticRelatedInformation] | None:
    """The cause cell's first line of code, in the cell's own URI, named as the cell it is."""
    lines = cause.text.split("\n")
    first = next((n for n, text in enumerate(lines) if text.strip()), 0)
    producer = document.locate(cause, first)
    if producer is None:
        return None
    text = lines[first].strip() if lines else ""
    state = "ran" if cause.executed_unchanged else "not run yet"
    return [
        types.DiagnosticRelatedInformation(
            location=types.Location(
                uri=producer[0],
                range=types.Range(
                    start=types.Position(line=producer[1], character=0),
                    end=types.Position(line=producer[1], character=len(lines[first])),
                ),
            ),
            message=f"cell {cause.index + 1} ({state}) produced the value: {text[:80]}",
        )
    ]


def to_diagnostic(
    document: CellDocument, cell: Cell, finding: Finding, *, note_executed: bool = True
) -> tuple[str, types.Diagnostic] | None:
    """One finding as (URI, Diagnostic); a cell that already ran gets at most Information."""
    placed = finding_range(document, cell, finding)
    if placed is None:
        return None
    uri, where = placed
    code_cells = document.checked_cells
    if finding.related_cell is not None and 0 <= finding.related_cell < len(code_cells):
        finding = renumber(finding, code_cells[finding.related_cell].index + 1)
    severity = SEVERITIES.get(finding.severity, types.DiagnosticSeverity.Warning)
    executed = cell.executed_unchanged and severity < types.DiagnosticSeverity.Information
    if executed:
        if not note_executed:
            return None
        severity = types.DiagnosticSeverity.Information
    related = None
    if finding.related_cell is not None and 0 <= finding.related_cell < len(code_cells):
        cause = code_cells[finding.related_cell]
        related = _cause_location(document, cause)
    data: dict[str, Any] = {
        "finding": msgspec.to_builtins(finding),
        "cell": cell.index,
        "document": document.uri,
        "version": document.version,
    }
    return uri, types.Diagnostic(
        range=where,
        message=_message(finding, executed=executed),
        severity=severity,
        source=finding.source,
        code=finding.code,
        related_information=related,
        data=data,
    )


def finding_of(diagnostic: types.Diagnostic) -> tuple[Finding, int, str] | None:
    """Recover (finding, cell index, document URI) from a crane diagnostic's data."""
    data = diagnostic.data
    if diagnostic.source not in CRANE_SOURCES or not isinstance(data, dict):
        return None
    try:
        finding = msgspec.convert(data["finding"], Finding)
        return finding, int(data["cell"]), str(data["document"])
    except (KeyError, TypeError, ValueError, msgspec.ValidationError):
        return None
