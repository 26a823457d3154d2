"""Detection and joint metrics, majority vote, breakdowns, rule counts, usage."""

from __future__ import annotations

import pytest

from crane_server.eval.labels import auto_label, exception_name
from crane_server.eval.metrics import (
    Confusion,
    breakdown,
    compare,
    confusion,
    rule_counts,
    score,
    usage,
    vote,
)
from tests.eval.helpers import case, row

CASES = {c.case_id: c for c in (case("a"), case("b", library="numpy", exception="ValueError"))}


@pytest.mark.parametrize(
    ("matrix", "accuracy", "precision", "recall", "f1"),
    [
        pytest.param(Confusion(tp=8, fp=2, tn=8, fn=2), 0.8, 0.8, 0.8, 0.8, id="balanced"),
        pytest.param(Confusion(tp=6, fp=0, tn=10, fn=4), 0.8, 1.0, 0.6, 0.75, id="precise"),
        pytest.param(Confusion(tp=0, fp=0, tn=5, fn=5), 0.5, None, 0.0, None, id="never-positive"),
        pytest.param(Confusion(tp=0, fp=3, tn=0, fn=2), 0.0, 0.0, 0.0, 0.0, id="all-wrong"),
        pytest.param(Confusion(), None, None, None, None, id="empty"),
    ],
)
def test_confusion_metrics(
    matrix: Confusion,
    accuracy: float | None,
    precision: float | None,
    recall: float | None,
    f1: float | None,
) -> None:
    assert matrix.accuracy == pytest.approx(accuracy)
    assert matrix.precision == pytest.approx(precision)
    assert matrix.recall == pytest.approx(recall)
    assert matrix.f1 == pytest.approx(f1)


def test_confusion_counts_pairs() -> None:
    pairs = [(True, True), (True, False), (False, True), (False, False), (True, True)]
    assert confusion(pairs) == Confusion(tp=2, fn=1, fp=1, tn=1)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("KeyError", "KeyError"),
        ("pandas.errors.InvalidIndexError", "InvalidIndexError"),
        ("KeyError: 'Agee'", "KeyError"),
        ("  ", None),
        (None, None),
    ],
)
def test_exception_name(text: str | None, name: str | None) -> None:
    assert exception_name(text) == name


@pytest.mark.parametrize(
    ("exception", "line", "label"),
    [
        ("KeyError", 2, "correct"),
        ("builtins.KeyError", 2, "correct"),
        ("KeyError", 5, "partially correct"),
        ("ValueError", 2, "partially correct"),
        ("ValueError", None, "wrong"),
    ],
)
def test_auto_label(exception: str, line: int | None, label: str) -> None:
    assert auto_label(case("x", lines=(1, 2)), exception, line) == label


def test_auto_label_unknown_without_expected_exception() -> None:
    assert auto_label(case("x", exception=None), "KeyError", 2) is None


def test_majority_vote_over_runs() -> None:
    rows = [
        row("a", "reproduced", True, run=0, exception="KeyError", line=2),
        row("a", "reproduced", True, run=1, exception="KeyError", line=2),
        row("a", "reproduced", False, run=2),
        row("a", "fixed", True, run=0, exception="KeyError", line=2),
        row("a", "fixed", False, run=1),
        row("a", "fixed", False, run=2),
        row("b", "reproduced", True, run=0, exception="KeyError", line=2),
        row("b", "reproduced", False, run=1),
    ]
    items = vote(rows, CASES)
    assert items[("a", "reproduced")].crash is True
    assert items[("a", "reproduced")].joint_hit is True
    assert items[("a", "fixed")].crash is False
    # A tie (1 of 2 runs) counts as no crash.
    assert items[("b", "reproduced")].crash is False
    assert items[("a", "reproduced")].runs == 3


def test_vote_ignores_error_rows() -> None:
    rows = [row("a", "reproduced", None, status="error"), row("a", "fixed", False)]
    assert set(vote(rows, CASES)) == {("a", "fixed")}


def test_joint_needs_correct_diagnosis() -> None:
    rows = [
        # a: crash detected with the right type and line: joint TP.
        row("a", "reproduced", True, exception="KeyError", line=2),
        row("a", "fixed", False),
        # b: crash detected but the wrong exception: detection TP, joint FN.
        row("b", "reproduced", True, exception="KeyError", line=2),
        row("b", "fixed", True, exception="ValueError", line=2),
    ]
    scores = score(vote(rows, CASES).values(), CASES)
    assert scores.detection == Confusion(tp=2, fp=1, tn=1, fn=0)
    assert scores.joint == Confusion(tp=1, fp=1, tn=1, fn=1)
    assert (scores.exception_hits, scores.exception_total) == (1, 2)
    assert (scores.line_hits, scores.line_total) == (2, 2)
    assert scores.exception_accuracy == 0.5


def test_judge_label_used_where_no_automatic_label() -> None:
    text_only = {"t": case("t", exception=None, lines=())}
    hit = [row("t", "reproduced", True, engine="llm", judge_label="correct")]
    miss = [row("t", "reproduced", True, engine="llm", judge_label="partially correct")]
    assert score(vote(hit, text_only).values(), text_only).joint.tp == 1
    assert score(vote(miss, text_only).values(), text_only).joint.fn == 1


def test_breakdown_per_library() -> None:
    rows = [
        row("a", "reproduced", True, exception="KeyError", line=2),
        row("a", "fixed", False),
        row("b", "reproduced", False),
        row("b", "fixed", False),
    ]
    per_library = breakdown(vote(rows, CASES).values(), CASES, lambda i: i.library)
    assert list(per_library) == ["numpy", "pandas"]
    assert per_library["pandas"].detection.recall == 1.0
    assert per_library["numpy"].detection.recall == 0.0


def test_rule_counts() -> None:
    rows = [
        row(
            "a", "reproduced", True, exception="KeyError", line=2, codes=("pandas-missing-column",)
        ),
        row("a", "fixed", True, exception="KeyError", line=2, codes=("pandas-missing-column",)),
        row("b", "reproduced", True, exception="ValueError", line=2, codes=("numpy-shape",)),
    ]
    counts = {c.code: c for c in rule_counts(rows, CASES)}
    assert counts["pandas-missing-column"].on_reproduced == 1
    assert counts["pandas-missing-column"].on_fixed == 1
    assert counts["pandas-missing-column"].precision == 0.5
    assert counts["numpy-shape"].exception_right == 1


def test_compare_settings_with_mcnemar() -> None:
    good = [
        row(c, v, v == "reproduced", exception="KeyError", line=2)
        for c in "ab"
        for v in ("reproduced", "fixed")
    ]
    bad = [
        row(c, v, True, exception="KeyError", line=2) for c in "ab" for v in ("reproduced", "fixed")
    ]
    result = compare(vote(good, CASES), vote(bad, CASES))
    assert (result.n, result.b, result.c) == (4, 2, 0)
    assert result.p_value == pytest.approx(0.5)


def test_usage_and_cost() -> None:
    rows = [
        row("a", "reproduced", True, latency_ms=100.0, prompt_tokens=1000, completion_tokens=100),
        row("a", "fixed", False, latency_ms=300.0, prompt_tokens=3000, completion_tokens=300),
        row("b", "fixed", None, status="error", latency_ms=None),
    ]
    result = usage(rows, (2.0, 10.0))
    assert result.latency_ms.median == 200.0
    assert result.prompt_tokens.n == 2
    assert result.cost == pytest.approx((4000 * 2.0 + 400 * 10.0) / 1e6)
    assert usage(rows).cost is None
