"""Every rule, twice: the checker's prediction, and the real run that confirms it."""

from __future__ import annotations

import linecache
import os
from typing import Any

import pytest

from crane_server.probe.checker import run_checker
from tests.checker.rule_cases import CASES, RuleCase


def _namespace(case: RuleCase, tmp_path: Any) -> dict[str, Any]:
    """Run the setup as a notebook cell would: its source is known to linecache, as in IPython."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    filename = f"<crane-test-setup-{case.id}>"
    linecache.cache[filename] = (len(case.setup), None, case.setup.splitlines(True), filename)
    exec(compile(case.setup, filename, "exec"), namespace)
    return namespace


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    os.environ.setdefault("MPLBACKEND", "Agg")


def _real_exception(cell: str, namespace: dict[str, Any]) -> str | None:
    try:
        exec(compile(cell, "<cell>", "exec"), namespace)
    except BaseException as exc:
        return type(exc).__name__
    return None


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
@pytest.mark.filterwarnings("ignore")
def test_checker_prediction(case: RuleCase, tmp_path: Any) -> None:
    findings, rule_errors = run_checker(case.cell, _namespace(case, tmp_path))
    assert rule_errors == []
    if case.code is None:
        assert findings == [], f"false alarm on working code: {findings}"
        return
    assert findings, "no finding"
    first = findings[0]
    assert (first["code"], first["exception"], first["line"]) == (
        case.code,
        case.exception,
        case.line,
    )
    assert first["message"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
@pytest.mark.filterwarnings("ignore")
def test_real_run_confirms(case: RuleCase, tmp_path: Any) -> None:
    namespace = _namespace(case, tmp_path)
    raised = _real_exception(case.cell, namespace)
    assert raised == case.exception


def test_checker_does_not_mutate_namespace_objects(tmp_path: Any) -> None:
    case = CASES[0]
    namespace = _namespace(RuleCase("m", case.setup, "", None), tmp_path)
    frame = namespace["df"]
    before = frame.copy()
    names = set(namespace)
    cell = (
        "df.drop(columns='Amount', inplace=True)\ndf['new'] = 1\ndel df['City']\n"
        "df.rename(columns={'Class': 'c'}, inplace=True)\nrows = []\nrows.append(1)\ndf.sort_values('c', inplace=True)"
    )
    run_checker(cell, namespace)
    assert namespace["df"] is frame
    assert frame.equals(before) and list(frame.columns) == list(before.columns)
    assert set(namespace) == names


def test_user_functions_given_to_library_methods_are_not_called(tmp_path: Any) -> None:
    case = next(c for c in CASES if c.id == "apply-user-function-not-called")
    namespace = _namespace(case, tmp_path)
    run_checker(
        case.cell + "\nlabels = df['City'].map(tag)\nparts = df.groupby('City').apply(tag)",
        namespace,
    )
    assert namespace["calls"] == []
