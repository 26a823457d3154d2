"""How a twin's report is read, and how it is merged with the checker's verdict."""

from __future__ import annotations

from typing import Any

import pytest

from crane_server.analysis.merge import DRY_RUN_CODE, merge_dry_run
from crane_server.protocol import CheckResult, Finding
from crane_server.protocol.dry_run import DryRun
from crane_server.twin.verdict import read_report

SOURCE = "x = 1\ny = df['zz']\n"


def raised(**extra: Any) -> dict[str, Any]:
    report = {
        "state": "done",
        "outcome": "raised",
        "exception": "KeyError",
        "message": "'zz'",
        "line": 2,
        "base": ["KeyError", "LookupError", "Exception", "BaseException", "object"],
        "traceback": [{"file": "cell", "line": 2, "function": "<module>", "text": "y = df['zz']"}],
    }
    report.update(extra)
    return report


@pytest.mark.parametrize(
    ("report", "outcome", "why"),
    [
        pytest.param(raised(), "raised", None, id="a real exception"),
        pytest.param({"outcome": "clean"}, "clean", None, id="clean"),
        pytest.param({"outcome": "unknown", "reason": "denied"}, "unknown", "denied", id="unknown"),
        pytest.param(raised(exception="SystemExit", base=["SystemExit"]), "unknown", "exits",
                     id="exit"),
        pytest.param(raised(exception="_ArrayMemoryError",
                            base=["_ArrayMemoryError", "MemoryError"]), "unknown", "memory",
                     id="a MemoryError subclass"),
        pytest.param(raised(exception="RuntimeError", base=["RuntimeError"],
                            message="DefaultCPUAllocator: can't allocate memory"),
                     "unknown", "memory", id="an allocation failure under another type"),
        pytest.param(raised(exception="RecursionError", base=["RecursionError"]), "unknown",
                     "recursed", id="recursion (the twin's stack is deeper)"),
        pytest.param(raised(line=None), "unknown", "outside", id="no cell line"),
        pytest.param({"state": "done"}, "unknown", "vouch", id="no outcome at all"),
    ],
)  # fmt: skip
def test_read_report(report: dict[str, Any], outcome: str, why: str | None) -> None:
    dry = read_report(report)
    assert dry.outcome == outcome
    if why is not None:
        assert why in (dry.reason or "")


def checker(*findings: Finding) -> CheckResult:
    return CheckResult(crash=any(f.severity == "error" for f in findings), findings=list(findings))


MISSING = Finding(
    code="pandas-missing-column", exception="KeyError", message="'zz'", line=2, fix="use 'z'"
)
NOTE = Finding(code="note", exception="", message="a note", line=1, severity="information")


def test_a_raise_the_checker_predicted_keeps_its_fix_and_says_confirmed() -> None:
    merged = merge_dry_run(checker(MISSING, NOTE), read_report(raised()), SOURCE)
    errors = [f for f in merged.findings if f.severity == "error"]
    assert [f.code for f in errors] == ["pandas-missing-column"]
    assert errors[0].fix == "use 'z'" and errors[0].message == "'zz'"
    assert errors[0].evidence.facts[-1].startswith("confirmed by a dry run")
    # one line of evidence, not the traceback: that stays on the attached DryRun
    assert not any(" in " in f and ":" in f.split(" in ")[0] for f in errors[0].evidence.facts)
    assert merged.dry_run is not None and merged.dry_run.traceback
    assert NOTE in merged.findings and merged.crash and merged.engine == "rules+dry-run"


def test_a_raise_the_checker_missed_becomes_the_error() -> None:
    merged = merge_dry_run(checker(NOTE), read_report(raised()), SOURCE)
    (error,) = [f for f in merged.findings if f.severity == "error"]
    assert (error.code, error.exception, error.line) == (DRY_RUN_CODE, "KeyError", 2)
    assert (error.column, error.end_column) == (0, len("y = df['zz']"))
    assert merged.crash and merged.dry_run is not None


def test_the_twin_wins_over_a_checker_that_disagrees() -> None:
    other = Finding(code="python-name-error", exception="NameError", message="x", line=1)
    merged = merge_dry_run(checker(other), read_report(raised()), SOURCE)
    assert [f.exception for f in merged.findings if f.severity == "error"] == ["KeyError"]
    clean = merge_dry_run(checker(MISSING, NOTE), DryRun(outcome="clean"), SOURCE)
    assert not clean.crash and clean.findings == [NOTE]


@pytest.mark.parametrize("outcome", ["unknown", "unavailable"])
def test_an_unsettled_dry_run_leaves_the_checker_verdict(outcome: str) -> None:
    before = checker(MISSING)
    merged = merge_dry_run(before, DryRun(outcome=outcome, reason="why"), SOURCE)  # type: ignore[arg-type]
    assert merged.findings == before.findings and merged.crash
    assert merged.dry_run is not None and merged.engine == "rules"
