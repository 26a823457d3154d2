"""Tiny case folders written into tmp_path for the end-to-end eval tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_notebook(path: Path, *cells: str) -> None:
    path.write_text(
        json.dumps(
            {
                "cells": [
                    {
                        "cell_type": "code",
                        "source": source,
                        "metadata": {},
                        "outputs": [],
                        "execution_count": None,
                    }
                    for source in cells
                ],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        ),
        encoding="utf-8",
    )


def write_case(
    root: Path,
    case_id: str,
    reproduced: list[str] | None,
    fixed: list[str] | None,
    **meta: Any,
) -> Path:
    folder = root / case_id
    folder.mkdir(parents=True)
    if reproduced is not None:
        write_notebook(folder / "reproduced.ipynb", *reproduced)
    if fixed is not None:
        write_notebook(folder / "fixed.ipynb", *fixed)
    (folder / "case.json").write_text(json.dumps({"case_id": case_id, **meta}), encoding="utf-8")
    return folder


def undefined_name_case(root: Path, case_id: str = "py_undefined") -> Path:
    """NameError in the target, unless the fixed notebook defined the name first."""
    return write_case(
        root,
        case_id,
        ["x = 1", "total = x + undefined_thing"],
        ["x = 1\nundefined_thing = 2", "total = x + undefined_thing"],
        library="python",
        expected_exception="NameError",
        crash_line=1,
        crash_lines=[1],
        reason="undefined_thing is never defined",
        target_identical=True,
    )


def missing_column_case(root: Path, case_id: str = "pandas_column") -> Path:
    return write_case(
        root,
        case_id,
        ["import pandas as pd\ndf = pd.DataFrame({'a': [1, 2]})", "n = 1\nvalue = df['b'].sum()"],
        ["import pandas as pd\ndf = pd.DataFrame({'a': [1, 2]})", "n = 1\nvalue = df['a'].sum()"],
        library="pandas",
        expected_exception="KeyError",
        crash_line=2,
        crash_lines=[2],
        reason="df has no column 'b'",
    )


def bad_cases(root: Path) -> None:
    """No fixed.ipynb; a preceding cell fails; the kernel hangs; a notebook is not JSON."""
    write_case(
        root,
        "bad_missing",
        ["y = 1", "y.nope"],
        None,
        library="python",
        expected_exception="AttributeError",
        crash_line=1,
        crash_lines=[1],
    )
    write_case(root, "bad_prefix", ["1 / 0", "z = 1"], ["1 / 0", "z = 2"], library="python")
    write_case(
        root,
        "bad_hang",
        ["import time\ntime.sleep(1000)", "w = 1"],
        ["import time\ntime.sleep(1000)", "w = 2"],
        library="python",
    )
    broken = write_case(root, "bad_json", ["v = 1", "v.nope"], None, library="python")
    (broken / "fixed.ipynb").write_text("{not json", encoding="utf-8")


def text_only_case(root: Path, case_id: str = "py_text") -> Path:
    """Like the undefined-name case, but the ground truth is only a text reason."""
    return write_case(
        root,
        case_id,
        ["x = 1", "total = x + undefined_thing"],
        ["x = 1\nundefined_thing = 2", "total = x + undefined_thing"],
        library="python",
        reason="the helper was never defined",
    )
