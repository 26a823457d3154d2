"""The LLM judge's prompt, label parsing and agreement with the automatic labels."""

from __future__ import annotations

import pytest

from crane_server.eval.judge import judge_agreement, judge_prompt, make_judge, parse_label
from tests.eval.helpers import case, row


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("correct", "correct"),
        ("Label: Partially Correct.", "partially correct"),
        ("reasoning   wrong", "reasoning wrong"),
        ("WRONG", "wrong"),
        ("I cannot tell", None),
        ("", None),
    ],
)
def test_parse_label(answer: str, label: str | None) -> None:
    assert parse_label(answer) == label


def test_prompt_holds_actual_and_predicted_crash() -> None:
    known = case("a", reason="drop ran twice")
    predicted = row("a", "reproduced", True, exception="KeyError", line=7)
    predicted.reasoning = "column already dropped"
    prompt = judge_prompt(known, predicted)
    for text in (
        "drop ran twice",
        "column already dropped",
        "Line in the target cell: 7",
        "partially correct",
    ):
        assert text in prompt


async def test_make_judge_uses_the_completion() -> None:
    prompts: list[str] = []

    async def complete(prompt: str) -> str:
        prompts.append(prompt)
        return "reasoning wrong"

    judge = make_judge(complete)
    label = await judge(case("a"), row("a", "reproduced", True, exception="KeyError", line=2))
    assert label == "reasoning wrong"
    assert len(prompts) == 1


def test_agreement_with_automatic_labels() -> None:
    cases = {c.case_id: c for c in (case("a"), case("b"), case("t", exception=None, lines=()))}
    rows = [
        row("a", "reproduced", True, exception="KeyError", line=2, judge_label="correct"),
        row("b", "reproduced", True, exception="KeyError", line=9, judge_label="correct"),
        row("t", "reproduced", True, judge_label="wrong"),  # text-only: no automatic label
    ]
    result = judge_agreement(rows, cases)
    assert result.n == 2
    assert result.agreement == 0.5
