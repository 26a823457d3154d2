"""Case folders and the JunoBench loader."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import pytest

from crane_server.errors import DocumentError
from crane_server.eval.cases import load_dataset
from crane_server.eval.junobench import convert_junobench, metadata_from_row, read_table


def notebook(*cells: str) -> str:
    return json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "source": c,
                    "metadata": {},
                    "outputs": [],
                    "execution_count": None,
                }
                for c in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def test_dataset_of_case_folders(tmp_path: Path) -> None:
    good = tmp_path / "good"
    good.mkdir()
    (good / "reproduced.ipynb").write_text(notebook("x = 1", "x.foo"))
    (good / "fixed.ipynb").write_text(notebook("x = 1", "x.real"))
    (good / "case.json").write_text(
        json.dumps(
            {
                "case_id": "good",
                "library": "python",
                "expected_exception": "AttributeError",
                "crash_line": 1,
                "crash_lines": [1],
                "reason": "int has no foo",
                "root_cause": "typo",
            }
        )
    )
    half = tmp_path / "half"
    half.mkdir()
    (half / "reproduced.ipynb").write_text(notebook("1/0"))
    (tmp_path / "not-a-case").mkdir()
    cases = load_dataset(tmp_path)
    assert [c.case_id for c in cases] == ["good", "half"]
    first, second = cases
    assert first.problems == ()
    assert first.auto_judgeable and first.expected_lines == {1}
    assert first.root_cause == "typo"
    assert set(second.problems) == {"case.json missing", "fixed.ipynb missing"}
    assert not second.auto_judgeable


def test_a_case_folder_is_a_dataset_of_one(tmp_path: Path) -> None:
    (tmp_path / "reproduced.ipynb").write_text(notebook("1/0"))
    assert [c.case_id for c in load_dataset(tmp_path)] == [tmp_path.name]


@pytest.mark.parametrize("make", [lambda p: p / "missing", lambda p: p])
def test_no_cases_is_an_error(tmp_path: Path, make) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DocumentError):
        load_dataset(make(tmp_path))


def test_metadata_aliases() -> None:
    meta = metadata_from_row(
        {
            "fname": "60034e_item.ipynb",
            "library_cause": "statsmodels",
            "ename": "valueerror",
            "Crash_Line": "3",
            "crash_lines": "1, 3",
            "evalue": "could not broadcast",
            "label_root_cause": "API misuse",
        }
    )
    assert meta == {
        "case_id": "60034e_item",
        "library": "statsmodels",
        "expected_exception": "valueerror",
        "crash_line": "3",
        "crash_lines": [1, 3],
        "reason": "could not broadcast",
        "root_cause": "API misuse",
    }


def _junobench(root: Path) -> None:
    folder = root / "nb_1"
    folder.mkdir(parents=True)
    (folder / "nb_1_reproduced.ipynb").write_text(notebook("a = 1", "a.foo", "print('after')"))
    (folder / "nb_1_fixed.ipynb").write_text(notebook("a = 1", "a.real", "print('after')"))
    (folder / "data.csv").write_text("x\n1\n")


def test_convert_junobench_csv(tmp_path: Path) -> None:
    root = tmp_path / "juno"
    _junobench(root)
    with (root / "benchmark_desc.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["nb_id", "library", "ename", "crash_line", "evalue", "target_cell"])
        writer.writerow(["nb_1", "python", "AttributeError", "1", "no attribute foo", "1"])
    cases = load_dataset(convert_junobench(root, tmp_path / "out" / "cases"))
    assert len(cases) == 1
    converted = cases[0]
    assert converted.case_id == "nb_1" and converted.expected_exception == "AttributeError"
    assert converted.problems == ()
    cells = json.loads(converted.notebook("reproduced").read_text())["cells"]
    assert [c["source"] for c in cells] == ["a = 1", "a.foo"]  # truncated after the target
    assert (converted.folder / "data.csv").read_text() == "x\n1\n"


def test_convert_junobench_xlsx(tmp_path: Path) -> None:
    root = tmp_path / "juno"
    _junobench(root)
    path = root / "ground_truth.xlsx"
    if importlib.util.find_spec("openpyxl") is None:
        path.write_bytes(b"PK")
        with pytest.raises(DocumentError, match="openpyxl"):
            read_table(path)
        return
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["case_id", "library", "expected_exception", "crash_line"])
    sheet.append(["nb_1", "python", "AttributeError", 1])
    book.save(path)
    cases = load_dataset(convert_junobench(root, tmp_path / "cases"))
    assert cases[0].crash_line == 1


def test_junobench_without_table(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="ground-truth"):
        convert_junobench(tmp_path, tmp_path / "cases")
