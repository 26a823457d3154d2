"""Fast structural checks of the field corpus: files, notebooks, case.json fields.

Runs no kernel; tests/field_corpus/README.md says how to confirm the crashes for real
(scripts/field_corpus_confirm.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent
CASE_DIRS = sorted(d for d in ROOT.iterdir() if d.is_dir() and not d.name.startswith(("_", ".")))
REQUIRED = {
    "case_id": str,
    "library": str,
    "expected_exception": str,
    "crash_line": int,
    "crash_lines": list,
    "reason": str,
    "source_url": str,
    "source_title": str,
    "target_identical": bool,
}


def _code_cells(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def test_corpus_is_not_empty() -> None:
    assert CASE_DIRS, "no case folders under tests/field_corpus"


@pytest.mark.parametrize("case_dir", CASE_DIRS, ids=[d.name for d in CASE_DIRS])
def test_case_folder(case_dir: Path) -> None:
    for name in ("reproduced.ipynb", "fixed.ipynb", "case.json"):
        assert (case_dir / name).is_file(), f"{case_dir.name}: missing {name}"

    meta = json.loads((case_dir / "case.json").read_text())
    for key, typ in REQUIRED.items():
        assert key in meta, f"{case_dir.name}: case.json lacks {key}"
        assert isinstance(meta[key], typ), f"{case_dir.name}: {key} is not {typ.__name__}"
    assert meta["case_id"] == case_dir.name
    assert case_dir.name.startswith(meta["library"] + "_")
    assert meta["source_url"].startswith("http"), meta["source_url"]
    assert meta["reason"].strip() and meta["expected_exception"].strip()

    repro = _code_cells(case_dir / "reproduced.ipynb")
    fixed = _code_cells(case_dir / "fixed.ipynb")
    assert len(repro) >= 2, "a setup cell and a target cell at least"
    assert fixed, "fixed notebook has no code cells"
    n_lines = len(repro[-1].splitlines())
    assert 1 <= meta["crash_line"] <= n_lines
    assert meta["crash_line"] in meta["crash_lines"]
    assert all(isinstance(n, int) and 1 <= n <= n_lines for n in meta["crash_lines"])
    assert meta["target_identical"] == (repro[-1] == fixed[-1])


def test_case_ids_unique() -> None:
    ids = [json.loads((d / "case.json").read_text())["case_id"] for d in CASE_DIRS]
    assert len(ids) == len(set(ids))
