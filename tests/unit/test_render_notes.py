"""The text output says when a check was cut short, so "no crash predicted" is never bare."""

from __future__ import annotations

from crane_server.commands.render import BUDGET_NOTE, render_result
from crane_server.protocol import CheckResult


def test_a_spent_budget_is_said_before_the_verdict() -> None:
    text = render_result(CheckResult(crash=False, budget_spent=True), "nb.ipynb")
    assert text.splitlines() == [f"nb.ipynb: {BUDGET_NOTE}", "nb.ipynb: no crash predicted"]


def test_no_note_when_the_walk_finished() -> None:
    assert render_result(CheckResult(crash=False), "nb.ipynb") == "nb.ipynb: no crash predicted"
