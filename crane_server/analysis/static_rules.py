"""Checks that need only the set of defined names and the last snapshot (busy kernel)."""

from __future__ import annotations

import ast
import builtins
import difflib

from crane_server.analysis.facts import bound_names, cell_facts
from crane_server.protocol import (
    CheckResult,
    Evidence,
    Finding,
    NameInventory,
    Replacement,
    RuntimeSnapshot,
)

INJECTED = frozenset({"In", "Out", "get_ipython", "exit", "quit", "display", "_", "__", "___"})


def check_cell_static(
    source: str,
    inventory: NameInventory,
    last_snapshot: RuntimeSnapshot | None = None,
    pending_code: list[str] | None = None,
) -> CheckResult:
    """Undefined names and missing columns, judged without running anything in the kernel.

    `pending_code` is the code of the cells running now: names they bind will exist when the
    target runs. None means unknown (a cell started before crane attached): then names are
    not judged.
    """
    try:
        facts = cell_facts(source)
    except SyntaxError as exc:
        line = exc.lineno or 1
        finding = Finding(
            code="python-syntax-error",
            exception="SyntaxError",
            message=exc.msg or "invalid syntax",
            line=line,
            column=max((exc.offset or 1) - 1, 0),
        )
        return CheckResult(crash=True, findings=[finding], engine="static")
    findings: list[Finding] = []
    pending_names: set[str] = set()
    for code in pending_code or []:
        pending_names |= bound_names(code)
    judge_names = pending_code is not None and not facts.star_import
    if judge_names:
        for use in facts.reads_before_binding:
            name = use.name
            if name in pending_names:
                continue
            if name in inventory.names or name in INJECTED or hasattr(builtins, name):
                continue
            if name.startswith("_i") or (name.startswith("_") and name[1:].isdigit()):
                continue
            findings.append(
                Finding(
                    code="python-undefined-name",
                    exception="NameError",
                    message=f"name '{name}' is not defined",
                    line=use.line,
                    column=use.column,
                    end_line=use.line,
                    end_column=use.end_column,
                    evidence=Evidence(
                        facts=[f"'{name}' is not among the kernel's names"],
                        based_on_last_snapshot=True,
                    ),
                )
            )
            break
    if not findings and last_snapshot is not None:
        findings.extend(_missing_columns(facts.subscripts, last_snapshot))
    return CheckResult(crash=bool(findings), findings=findings[:1], engine="static")


def _missing_columns(
    subscripts: list[tuple[str, object, ast.Subscript]], snapshot: RuntimeSnapshot
) -> list[Finding]:
    for name, key, node in subscripts:
        summary = snapshot.variables.get(name)
        if summary is None or summary.kind != "dataframe" or summary.columns is None:
            continue
        if summary.columns_total is not None and summary.columns_total > len(summary.columns):
            continue
        if not isinstance(key, str) or key in summary.columns:
            continue
        closest = difflib.get_close_matches(key, summary.columns, n=1, cutoff=0.6)
        replacement = []
        if closest:
            replacement.append(
                Replacement(
                    line=node.slice.lineno,
                    column=node.slice.col_offset,
                    end_line=node.slice.end_lineno or node.slice.lineno,
                    end_column=node.slice.end_col_offset or 0,
                    new_text=repr(closest[0]),
                )
            )
        return [
            Finding(
                code="pandas-missing-column",
                exception="KeyError",
                message=repr(key),
                line=node.lineno,
                column=node.col_offset,
                end_line=node.end_lineno,
                end_column=node.end_col_offset,
                evidence=Evidence(
                    facts=[f"columns of {name} at the last snapshot: {summary.columns[:12]}"],
                    closest=closest[0] if closest else None,
                    based_on_last_snapshot=True,
                ),
                fix=f"use {closest[0]!r}" if closest else None,
                replacements=replacement,
            )
        ]
    return []
