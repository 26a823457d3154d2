"""Generated differential test on data larger than the checker's sample.

The checker sees the first rows of a large frame (a head sample) with its true row count.
Labels, positions, categories and dates that exist only in the later rows must never make an
Error: every generated cell (a derived object, then a lookup or a call on it, with keys taken
from the early rows, the late rows and nowhere) is checked, then run for real on the same
objects, and every Error must name the exception the real run raises.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

from crane_server.probe.interpreter.checker import walk_cell
from crane_server.probe.values import SAMPLE_ROWS

ROWS = 3 * SAMPLE_ROWS

# What a cell derives from the large objects before it looks something up.
DERIVED = (
    "frame",
    "numbered",
    "frame.set_index('key')",
    "frame.groupby('key').sum(numeric_only=True)",
    "frame.pivot_table(index='key', values='amount')",
    "pd.get_dummies(frame['key'])",
    "frame.T",
    "frame.drop_duplicates('key')",
    "frame[frame['key'] == 'late']",
    "frame.sort_values('amount', ascending=False)",
    "frame.head(2 * SAMPLE)",
    "frame['key'].value_counts()",
    "frame.groupby('key').size()",
    "numbered['amount']",
    "numbered['key'].unique()",
    "hourly.resample('D').sum()",
    "paired.unstack()",
    "paired",
    "numbered.to_numpy()",
    "numbered['amount'].values",
    "matrix",
    "matrix.T",
    "matrix.reshape(-1)",
    "np.unique(np.asarray(frame['key']))",
    "matrix[matrix[:, 0] > 100]",
)
# A lookup or call on the derived object `it`; {key} and {pos} are filled in below.
USES = (
    "it.loc[{key}]",
    "it.iloc[{pos}]",
    "it[{key}]",
    "it.at[{key}, 'amount']",
    "it.iat[{pos}, 0]",
    "it[{pos}]",
    "it.index[{pos}]",
    "it.columns[{pos}]",
    "it.loc[:, {key}]",
    "it.xs({key})",
    "it.drop({key})",
    "it.take([{pos}])",
    "it.reindex([{key}]).iloc[0]",
    "it.rename(index={{{key}: 'x'}}, errors='raise')",
    "it[{pos}, 0]",
    "it.reshape(3 * SAMPLE, -1)",
    "np.take(it, {pos})",
)
KEYS = ("'early'", "'late'", "'nowhere'", "10", "4500", "99999", "'amount'", "'2000-02-20'")
POSITIONS = ("10", "4500", "99999", "-1")


def _namespace() -> dict[str, Any]:
    """Fresh large objects: the key 'late', labels past the sample, dates past it."""
    keys = ["early"] * SAMPLE_ROWS + ["late"] * (ROWS - SAMPLE_ROWS)
    frame = pd.DataFrame(
        {"key": keys, "amount": np.arange(ROWS, dtype=float), "count": np.arange(ROWS) % 7},
        index=pd.RangeIndex(ROWS) * 3,
    )
    hourly = pd.Series(np.ones(ROWS), index=pd.date_range("2000-01-01", periods=ROWS, freq="h"))
    paired = pd.Series(
        np.arange(ROWS, dtype=float),
        index=pd.MultiIndex.from_arrays([keys, np.arange(ROWS) % 10], names=["key", "digit"]),
    )
    return {
        "__name__": "__main__",
        "pd": pd,
        "np": np,
        "SAMPLE": SAMPLE_ROWS,
        "frame": frame,
        "numbered": frame.reset_index(drop=True),
        "hourly": hourly,
        "paired": paired,
        "matrix": np.arange(ROWS * 3, dtype=float).reshape(ROWS, 3),
    }


def _cells() -> list[str]:
    cells = []
    for derived, use in itertools.product(DERIVED, USES):
        for key, pos in itertools.product(KEYS, POSITIONS):
            if "{key}" not in use and key != KEYS[0]:
                continue
            if "{pos}" not in use and pos != POSITIONS[0]:
                continue
            cells.append(f"it = {derived}\nresult = {use.format(key=key, pos=pos)}")
    return cells


def _real_exception(cell: str) -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(cell, "<cell>", "exec"), _namespace())
    except Exception as exc:
        return type(exc).__name__
    return None


@pytest.mark.filterwarnings("ignore")
def test_keys_past_the_sample_never_make_an_error() -> None:
    cells = _cells()
    assert len(cells) > 1000
    wrong: list[str] = []
    hits = 0
    for cell in cells:
        findings, errors, _ = walk_cell(cell, _namespace())
        assert errors == [], cell
        predicted = [f for f in findings if f["severity"] == "error"]
        if not predicted:
            continue
        real = _real_exception(cell)
        if real != predicted[0]["exception"]:
            wrong.append(
                f"{cell!r}: predicted {predicted[0]['exception']} ({predicted[0]['code']}: "
                f"{predicted[0]['message'][:80]}), the run raised {real}"
            )
        else:
            hits += 1
    assert wrong == []
    # The cells reach the rules: keys that exist nowhere are found missing on large data too.
    assert hits >= 50
