"""Run-in-order lookahead: what happens to cell k if the pending cells above it run first.

The kernel-side checker already walks one cell over shadows of the live state, never running
anything, carrying what each statement binds, drops, fits or writes to the next statement. A
run of pending cells followed by cell k is walked the same way, as one source: the checker's
certainty rules hold unchanged (it stops at the first certain crash, and whatever it cannot
follow becomes unknown), and a finding is mapped back to the cell that holds its line. Only
findings inside cell k are its own; a crash in a pending cell above ends the walk there, as
the real run would end.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import msgspec

from crane_server.protocol import CheckResult, Finding

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class JoinedCells:
    """Pending cells and a target joined into one source, with where each cell starts."""

    source: str
    indices: list[int]  # notebook index of each joined cell, in order
    starts: list[int]  # 1-based line of each joined cell's first line in `source`

    def locate(self, line: int) -> tuple[int, int]:
        """(notebook index, 1-based line in that cell) of a line of the joined source."""
        position = 0
        for number, start in enumerate(self.starts):
            if start <= line:
                position = number
        return self.indices[position], line - self.starts[position] + 1


def followable(source: str) -> bool:
    """Can the walk follow this cell? Cell magics (`%%bash`, `%%writefile`) cannot be."""
    return not source.lstrip().startswith("%%")


def join_cells(sources: dict[int, str]) -> JoinedCells | None:
    """Join cells (notebook index -> source) in order; None if one cannot be followed."""
    if not all(followable(text) for text in sources.values()):
        return None
    parts: list[str] = []
    starts: list[int] = []
    line = 1
    for text in sources.values():
        starts.append(line)
        body = text.rstrip("\n")
        parts.append(body)
        line += body.count("\n") + 1
    return JoinedCells("\n".join(parts) + "\n", list(sources), starts)


def _names(source: str) -> tuple[set[str], set[str]]:
    """(names the cell may change: assigned, deleted, item-assigned or method-called; names
    it mentions at all)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        found = set(_IDENTIFIER.findall(source))
        return found, found
    changed: set[str] = set()
    mentioned: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            mentioned.add(node.id)
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                changed.add(node.id)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(
            node.ctx, (ast.Store, ast.Del)
        ):
            base = node.value
            if isinstance(base, ast.Name):
                changed.add(base.id)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
        ):
            changed.add(node.func.value.id)
    return changed, mentioned


def cause_cell(
    joined: JoinedCells, sources: dict[int, str], finding: Finding, target: int
) -> int | None:
    """The last cell above `target` in the walk that changes (else mentions) a name the
    crashing line uses."""
    lines = sources[target].split("\n")
    _, line = joined.locate(finding.line)
    used = set(_IDENTIFIER.findall(lines[line - 1])) if 0 < line <= len(lines) else set()
    above = list(reversed(joined.indices[: joined.indices.index(target)]))
    names = {index: _names(sources[index]) for index in above}
    for position in (0, 1):
        for index in above:
            if used & names[index][position]:
                return index
    return None


def _in_a_function_from_another_cell(
    joined: JoinedCells, finding: Finding
) -> tuple[int, Finding] | None:
    """A crash inside a function that a cell above defines, reached from a later cell's call,
    belongs to the calling cell (that is the cell that raises); the defining cell is related.
    None for any other finding."""
    if finding.statement_line is None:
        return None
    defined_in, defined_line = joined.locate(finding.line)
    index, line = joined.locate(finding.statement_line)
    if index == defined_in:
        return None
    last = finding.statement_end_line or finding.statement_line
    source_lines = joined.source.split("\n")
    text = source_lines[finding.line - 1].strip() if finding.line <= len(source_lines) else ""
    where = f"it raises in code cell {defined_in + 1}, line {defined_line}: {text[:80]}"
    evidence = msgspec.structs.replace(finding.evidence, facts=[*finding.evidence.facts, where])
    return index, msgspec.structs.replace(
        finding,
        evidence=evidence,
        line=line,
        column=0,
        end_line=line + last - finding.statement_line,
        end_column=None,
        related_cell=defined_in,
        replacements=[],
        statement_line=None,
        statement_end_line=None,
    )


_ALREADY_RAN = "by a cell that already ran"


def name_pending_cause(finding: Finding, cause_source: str, label: str | None = None) -> Finding:
    """The finding's words, true of a cause that is a pending cell (walked, never run), named
    by `label` ("cell 3") where the caller knows how its user counts cells."""
    first = next((line.strip() for line in cause_source.splitlines() if line.strip()), "")
    if len(first) > 60:
        first = first[:57] + "..."
    if label:
        pending = f"by {label}, which has not run yet (`{first}`)"
    else:
        pending = f"by a cell above that has not run yet (`{first}`)"
    fix = finding.fix.replace(_ALREADY_RAN, pending) if finding.fix else finding.fix
    message = finding.message.replace(_ALREADY_RAN, pending)
    return msgspec.structs.replace(finding, fix=fix, message=message)


def results_by_cell(
    joined: JoinedCells,
    sources: dict[int, str],
    checked: CheckResult,
    labels: dict[int, str] | None = None,
) -> dict[int, CheckResult]:
    """Each walked cell's CheckResult (cell-relative lines, the causing cell above) from one
    walk of all of them in order. The walk ends at the first predicted crash, as Run All
    would: cells after that cell get no result."""
    own: dict[int, list[Finding]] = {index: [] for index in joined.indices}
    for finding in checked.findings:
        called = _in_a_function_from_another_cell(joined, finding)
        if called is not None:
            index, moved = called
            own[index].append(moved)
            continue
        index, line = joined.locate(finding.line)
        cause = cause_cell(joined, sources, finding, index)
        end_line = None
        if finding.end_line is not None:
            end_line = finding.end_line - finding.line + line
        moved_finding = msgspec.structs.replace(
            finding,
            line=line,
            end_line=end_line,
            related_cell=cause if cause is not None else finding.related_cell,
        )
        if cause is not None and cause in sources:
            label = labels.get(cause) if labels else None
            moved_finding = name_pending_cause(moved_finding, sources[cause], label)
        own[index].append(moved_finding)
    results: dict[int, CheckResult] = {}
    for index in joined.indices:
        crash = any(f.severity == "error" for f in own[index])
        results[index] = CheckResult(
            crash=crash,
            findings=own[index],
            timings=checked.timings,
            cell=index + 1,
            execution_count=checked.execution_count,
            engine="rules-ahead",
            partial=checked.partial,
            budget_spent=checked.budget_spent,
            error=checked.error,
        )
        if crash:
            break
    return results
