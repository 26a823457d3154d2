"""The busy-kernel fallback: undefined names and missing columns from names and the last snapshot."""

from __future__ import annotations

import pytest

from crane_server.analysis.static_rules import check_cell_static
from crane_server.protocol import NameInventory, RuntimeSnapshot, VariableSummary

NAMES = NameInventory(names={"df": "DataFrame", "pd": "module", "helper": "function"})
SNAPSHOT = RuntimeSnapshot(
    variables={
        "df": VariableSummary(
            name="df", type="pandas.DataFrame", kind="dataframe", columns=["Amount", "Class"]
        ),
    }
)


@pytest.mark.parametrize(
    ("cell", "pending", "expected"),
    [
        pytest.param("print(total)", [], ("python-undefined-name", 1), id="undefined"),
        pytest.param("total = 1\nprint(total)", [], None, id="defined-in-cell"),
        pytest.param("print(total)", ["total = compute()"], None, id="defined-by-running-cell"),
        pytest.param("print(total)", None, None, id="running-cell-unknown"),
        pytest.param("from os.path import *\nprint(join)", [], None, id="star-import"),
        pytest.param(
            "for i in range(3):\n    if i:\n        print(last)\n    last = i",
            [],
            None,
            id="loop-carried",
        ),
        pytest.param("[x for x in range(3)]\nlen(df)", [], None, id="comprehension-and-builtin"),
        pytest.param("helper(df)", [], None, id="function-in-inventory"),
        pytest.param("df['amount']", [], ("pandas-missing-column", 1), id="missing-column"),
        pytest.param("df['Amount']", [], None, id="existing-column"),
        pytest.param(
            "%matplotlib inline\nprint(undefined_x)",
            [],
            ("python-undefined-name", 2),
            id="magic-line",
        ),
    ],
)
def test_static_check(
    cell: str, pending: list[str] | None, expected: tuple[str, int] | None
) -> None:
    result = check_cell_static(cell, NAMES, SNAPSHOT, pending)
    if expected is None:
        assert result.findings == []
        return
    finding = result.findings[0]
    assert (finding.code, finding.line) == expected
    assert finding.evidence.based_on_last_snapshot


def test_syntax_error() -> None:
    result = check_cell_static("def f(:\n  pass", NAMES, None, [])
    assert [f.exception for f in result.findings] == ["SyntaxError"]


def test_missing_column_quick_fix() -> None:
    finding = check_cell_static("x = df['amount']", NAMES, SNAPSHOT, []).findings[0]
    assert finding.evidence.closest == "Amount"
    assert finding.replacements[0].new_text == "'Amount'"
    assert (finding.replacements[0].column, finding.replacements[0].end_column) == (7, 15)
