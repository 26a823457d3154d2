"""Percentiles, the exact McNemar test and Cohen's kappa, against known values."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar

from crane_server.eval.stats import Spread, cohen_kappa, mcnemar_exact, mcnemar_paired, percentile


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        pytest.param(0, 0, 1.0, id="no-discordant-pairs"),
        pytest.param(0, 5, 0.0625, id="all-one-way"),
        pytest.param(1, 9, 0.021484375, id="one-vs-nine"),
        pytest.param(2, 8, 0.109375, id="two-vs-eight"),
        pytest.param(3, 3, 1.0, id="balanced-capped-at-one"),
        pytest.param(9, 1, 0.021484375, id="symmetric"),
    ],
)
def test_mcnemar_exact_known_values(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c).p_value == pytest.approx(expected)


@pytest.mark.parametrize(("b", "c"), [(0, 7), (4, 11), (12, 30), (25, 25), (40, 3)])
def test_mcnemar_exact_matches_statsmodels(b: int, c: int) -> None:
    reference = mcnemar([[10, b], [c, 10]], exact=True).pvalue
    assert mcnemar_exact(b, c).p_value == pytest.approx(reference)


def test_mcnemar_paired_counts_discordant_items() -> None:
    first = [True, True, False, False, True]
    second = [True, False, True, True, True]
    result = mcnemar_paired(first, second)
    assert (result.n, result.b, result.c) == (5, 1, 2)
    with pytest.raises(ValueError):
        mcnemar_paired([True], [])


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


@pytest.mark.parametrize("q", [0, 25, 50, 90, 95, 100])
def test_percentile_matches_numpy(q: float) -> None:
    values = [3.0, 1.0, 7.5, 2.2, 9.9, 4.0, 4.0]
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))


def test_spread_of_nothing_is_empty() -> None:
    spread = Spread.of([])
    assert (spread.n, spread.median, spread.p95, spread.mean) == (0, None, None, None)
    assert Spread.of([2.0, 4.0]).mean == 3.0


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param(["a", "b", "a", "c"], ["a", "b", "c", "c"], id="mixed"),
        pytest.param(["x", "y", "x", "y", "x"], ["x", "x", "x", "y", "y"], id="two-labels"),
    ],
)
def test_kappa_matches_sklearn(first: list[str], second: list[str]) -> None:
    result = cohen_kappa(first, second)
    assert result.kappa == pytest.approx(cohen_kappa_score(first, second))
    assert result.agreement == pytest.approx(
        sum(a == b for a, b in zip(first, second)) / len(first)
    )


def test_kappa_undefined_cases() -> None:
    assert cohen_kappa([], []).agreement is None
    same = cohen_kappa(["correct"] * 3, ["correct"] * 3)
    assert same.agreement == 1.0
    assert same.kappa is None
