"""Running a RuleCase: its setup as a notebook cell, the checker's prediction, the real run."""

from __future__ import annotations

import linecache
import warnings
from typing import Any

from crane_server.probe.interpreter.checker import walk_cell
from tests.checker.rule_cases import RuleCase


def namespace_for(case: RuleCase) -> dict[str, Any]:
    """Run the setup as IPython runs a cell: its source is known to linecache."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    filename = f"<crane-test-setup-{case.id}>"
    linecache.cache[filename] = (len(case.setup), None, case.setup.splitlines(True), filename)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(case.setup, filename, "exec"), namespace)
    return namespace


def assert_prediction(case: RuleCase) -> None:
    """The checker reports exactly the expected first finding, or nothing for a near miss."""
    findings, rule_errors, budget_spent = walk_cell(case.cell, namespace_for(case))
    assert rule_errors == []
    if case.code is None:
        assert findings == [], f"false alarm on working code: {findings}"
        return
    assert findings, "no finding" + (" (the walk's time budget ran out)" if budget_spent else "")
    first = findings[0]
    assert (first["code"], first["exception"], first["line"]) == (
        case.code,
        case.exception,
        case.line,
    )
    assert first["message"]


def real_exception(case: RuleCase) -> str | None:
    """The name of the exception the cell really raises (None when it runs)."""
    namespace = namespace_for(case)
    try:
        exec(compile(case.cell, "<cell>", "exec"), namespace)
    except BaseException as exc:
        return type(exc).__name__
    return None
