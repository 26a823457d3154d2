"""Human output for check results, in the style of a compiler's diagnostics."""

from __future__ import annotations

from crane_server.protocol import CheckResult, Finding

BUSY_NOTE = (
    "kernel busy: static check only (syntax, and names when they were listed before the "
    "running cell started; live objects not inspected, so a crash may still happen)"
)


BUDGET_NOTE = "note: the check stopped at its time budget; the lines after that were not judged"


def render_result(result: CheckResult, target: str, source: str | None = None) -> str:
    """One block per finding: location, message, the line with a caret, evidence and fix.

    People count from 1: cells (among code cells), lines and columns are 1-based here; the
    JSON has the same `cell` and `line`, and LSP's 0-based `column`.
    """
    where = f"{target}" + (f", code cell {result.cell}" if result.cell is not None else "")
    if result.error:
        return f"{where}: error: {result.error}"
    partial = f"{where}: {BUSY_NOTE}" if result.partial else None
    budget = f"{where}: {BUDGET_NOTE}" if result.budget_spent else None
    notes = [note for note in (partial, budget) if note is not None]
    if not result.findings:
        timing = result.timings.get("check_ms") or result.timings.get("total_ms")
        suffix = f" ({timing:.0f} ms)" if timing is not None else ""
        return "\n".join([*notes, f"{where}: no crash predicted{suffix}"])
    blocks = [_render_finding(finding, where, source) for finding in result.findings]
    return "\n".join([*notes, *blocks])


def _render_finding(finding: Finding, where: str, source: str | None) -> str:
    lines = [
        f"{where}, line {finding.line}:{finding.column + 1}: {finding.severity}: "
        f"{finding.exception}: {finding.message} [{finding.code}]"
    ]
    if source is not None:
        text_lines = source.splitlines()
        if 0 < finding.line <= len(text_lines):
            text = text_lines[finding.line - 1]
            end = (
                finding.end_column
                if finding.end_line == finding.line and finding.end_column
                else len(text)
            )
            width = max(1, end - finding.column)
            lines.append(f"    {text}")
            lines.append("    " + " " * finding.column + "^" * width)
    for fact in finding.evidence.facts:
        lines.append(f"  evidence: {fact}")
    if finding.fix:
        lines.append(f"  fix: {finding.fix}")
    return "\n".join(lines)
