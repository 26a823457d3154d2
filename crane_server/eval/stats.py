"""Small statistics without scipy: percentiles, the exact McNemar test, Cohen's kappa."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) with linear interpolation; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = math.ceil(position)
    if low == high:
        return float(ordered[low])
    return float(ordered[low] + (ordered[high] - ordered[low]) * (position - low))


@dataclass(frozen=True)
class Spread:
    """Median, 95th percentile, mean and count of a sample."""

    n: int
    median: float | None
    p95: float | None
    mean: float | None
    total: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        total = float(sum(values))
        return cls(
            n=len(values),
            median=percentile(values, 50),
            p95=percentile(values, 95),
            mean=total / len(values) if values else None,
            total=total,
        )


@dataclass(frozen=True)
class McNemar:
    """Exact (binomial) McNemar test on paired outcomes.

    `b`: items only A gets right, `c`: items only B gets right; `n`: paired items.
    """

    n: int
    b: int
    c: int
    p_value: float


def mcnemar_exact(b: int, c: int, n: int | None = None) -> McNemar:
    """Two-sided exact McNemar p-value: 2 * P(X <= min(b, c)), X ~ Binomial(b + c, 1/2)."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    discordant = b + c
    if discordant == 0:
        return McNemar(n=n if n is not None else 0, b=b, c=c, p_value=1.0)
    tail = sum(math.comb(discordant, k) for k in range(min(b, c) + 1))
    p_value = min(1.0, 2.0 * tail / 2.0**discordant)
    return McNemar(n=n if n is not None else discordant, b=b, c=c, p_value=p_value)


def mcnemar_paired(a_right: Sequence[bool], b_right: Sequence[bool]) -> McNemar:
    """McNemar test of two classifiers' per-item correctness (same items, same order)."""
    if len(a_right) != len(b_right):
        raise ValueError("paired outcomes must have the same length")
    only_a = sum(1 for x, y in zip(a_right, b_right) if x and not y)
    only_b = sum(1 for x, y in zip(a_right, b_right) if y and not x)
    return mcnemar_exact(only_a, only_b, n=len(a_right))


@dataclass(frozen=True)
class Agreement:
    """How often two raters give the same label, and Cohen's kappa (None when undefined)."""

    n: int
    agreement: float | None
    kappa: float | None


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> Agreement:
    """Plain agreement and Cohen's kappa of two label sequences."""
    if len(first) != len(second):
        raise ValueError("label sequences must have the same length")
    n = len(first)
    if n == 0:
        return Agreement(n=0, agreement=None, kappa=None)
    observed = sum(1 for x, y in zip(first, second) if x == y) / n
    counts_a = Counter(first)
    counts_b = Counter(second)
    expected = sum(counts_a[label] * counts_b[label] for label in counts_a) / (n * n)
    kappa = None if expected == 1.0 else (observed - expected) / (1.0 - expected)
    return Agreement(n=n, agreement=observed, kappa=kappa)
