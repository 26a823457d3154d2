"""The frozen validation split: every case in exactly one part, at least a third of each
library aside, and `crane-server eval --split` selecting exactly the listed cases."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from crane_server.errors import DocumentError
from crane_server.eval.cases import load_dataset, select_split

ROOT = Path(__file__).parent
SPLIT = json.loads((ROOT / "SPLIT.json").read_text(encoding="utf-8"))


def test_every_case_is_in_exactly_one_part() -> None:
    cases = {p.name for p in ROOT.iterdir() if (p / "case.json").is_file()}
    validation, tuning = set(SPLIT["validation"]), set(SPLIT["tuning"])
    assert not validation & tuning
    assert validation | tuning == cases


def test_at_least_a_third_of_each_library_is_set_aside() -> None:
    library = {
        p.name: json.loads((p / "case.json").read_text(encoding="utf-8"))["library"]
        for p in ROOT.iterdir()
        if (p / "case.json").is_file()
    }
    total = Counter(library.values())
    aside = Counter(library[name] for name in SPLIT["validation"])
    for name, count in total.items():
        assert aside[name] >= math.floor(count / 3), name
    assert sum(aside.values()) * 3 >= sum(total.values())


def test_eval_split_selects_the_listed_cases() -> None:
    cases = load_dataset(ROOT)
    chosen = select_split(cases, ROOT, "validation")
    assert [c.case_id for c in chosen] == sorted(SPLIT["validation"])
    with pytest.raises(DocumentError, match="no split named"):
        select_split(cases, ROOT, "nonsense")
