"""Pure rules of the readiness context and of the message text every client shows."""

from __future__ import annotations

from crane_server.analysis.notebook_rules import annotate, renumber
from crane_server.lsp.diagnostics import evidence_text
from crane_server.protocol import Evidence, Finding


def name_error(name: str) -> Finding:
    return Finding(
        code="python-undefined-name",
        exception="NameError",
        message=f"name '{name}' is not defined",
        line=1,
    )


CELLS = ["import pandas as pd", "df = pd.DataFrame()", "df.head()\nlater", "later = 1"]


def test_a_name_from_an_unrun_cell_above_is_a_hint() -> None:
    [finding] = annotate([name_error("df")], CELLS[2], [], CELLS, 2)
    assert (finding.code, finding.severity) == ("notebook-waiting", "hint")
    assert finding.message == "waiting for cell 2 (it defines 'df')"
    assert finding.related_cell == 1


def test_a_name_bound_only_below_stays_an_error() -> None:
    [finding] = annotate([name_error("later")], CELLS[2], CELLS[:2], CELLS, 2)
    assert (finding.code, finding.severity) == ("notebook-name-below", "error")
    assert "cell 4, below this cell" in finding.evidence.facts[0]


def test_a_name_above_that_already_ran_stays_an_error() -> None:
    [finding] = annotate([name_error("df")], CELLS[2], CELLS[:2], CELLS, 2)
    assert (finding.code, finding.severity) == ("python-undefined-name", "error")


def test_a_star_import_above_that_has_not_run_may_bind_anything() -> None:
    cells = ["from math import *", "print(floor(2.5))"]
    [finding] = annotate([name_error("floor")], cells[1], [], cells, 1)
    assert finding.severity == "hint"


def test_renumber_uses_the_editor_cell_number() -> None:
    [finding] = annotate([name_error("df")], CELLS[2], [], CELLS, 2)
    shown = renumber(finding, 4)  # a markdown cell sits above in the editor
    assert shown.message == "waiting for cell 4 (it defines 'df')"
    assert shown.fix == "run cell 4 first"
    assert finding.message == "waiting for cell 2 (it defines 'df')"  # the original is kept


def test_evidence_is_short_and_keeps_two_lines() -> None:
    columns = ", ".join(f"'feature_{i:03d}'" for i in range(200))
    finding = Finding(
        code="pandas-missing-column",
        exception="KeyError",
        message="'revenu'",
        line=1,
        evidence=Evidence(
            facts=[f"available columns (201): [{columns}]", "closest existing column: 'revenue'"],
            closest="revenue",
        ),
    )
    text = evidence_text(finding)
    lines = text.split("\n")
    assert len(lines) == 2 and len(text) <= 201
    assert lines[0] == "closest existing column: 'revenue'"  # the actionable fact first
    assert lines[1].startswith("available columns (201): ['feature_000'")
    assert lines[1].endswith("\u2026")


def test_closest_name_alone_is_shown() -> None:
    finding = Finding(
        code="x", exception="AttributeError", message="m", line=1, evidence=Evidence(closest="mean")
    )
    assert evidence_text(finding) == "closest: 'mean'"
