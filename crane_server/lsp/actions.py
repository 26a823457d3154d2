"""Code actions: quick fixes from a finding's replacements, "Explain with the LLM"."""

from __future__ import annotations

from lsprotocol import types

from crane_server.documents import CellDocument
from crane_server.lsp.diagnostics import finding_of
from crane_server.protocol import Finding

CHECK_COMMAND = "crane.check"


def _edits(
    document: CellDocument, cell_index: int, finding: Finding
) -> dict[str, list[types.TextEdit]]:
    cell = document.cell(cell_index)
    if cell is None:
        return {}
    changes: dict[str, list[types.TextEdit]] = {}
    for replacement in finding.replacements:
        start = document.locate(cell, replacement.line - 1)
        end = document.locate(cell, replacement.end_line - 1)
        if start is None or end is None or start[0] != end[0]:
            return {}
        changes.setdefault(start[0], []).append(
            types.TextEdit(
                range=types.Range(
                    start=types.Position(line=start[1], character=replacement.column),
                    end=types.Position(line=end[1], character=replacement.end_column),
                ),
                new_text=replacement.new_text,
            )
        )
    return changes


def _title(finding: Finding) -> str:
    texts = {replacement.new_text for replacement in finding.replacements}
    if finding.source == "crane-llm":
        return "Apply the LLM's suggested fix"
    if len(texts) == 1:
        return f"Replace with {next(iter(texts))}"
    return "Apply crane's fix"


def code_actions(
    document: CellDocument, uri: str, diagnostics: list[types.Diagnostic]
) -> list[types.CodeAction]:
    """Quick fixes and "Explain with the LLM" for the crane diagnostics in the request."""
    actions: list[types.CodeAction] = []
    for diagnostic in diagnostics:
        recovered = finding_of(diagnostic)
        if recovered is None:
            continue
        finding, cell_index, _ = recovered
        changes = _edits(document, cell_index, finding)
        if changes:
            actions.append(
                types.CodeAction(
                    title=_title(finding),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=finding.source == "crane",
                    edit=types.WorkspaceEdit(changes=changes),
                )
            )
        argument = {"uri": uri, "line": diagnostic.range.start.line}
        actions.append(
            types.CodeAction(
                title="Explain with the LLM",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                command=types.Command(
                    title="Explain with the LLM", command=CHECK_COMMAND, arguments=[argument]
                ),
            )
        )
    return actions
