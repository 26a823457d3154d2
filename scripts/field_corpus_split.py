"""Freeze the field corpus's validation split: at least a third of each library's cases.

Within each library the cases are ordered by the SHA-256 of their case id (a fixed order that
no one chooses) and the first ceil(n/3) are validation; the rest are for tuning. Assignments
already in SPLIT.json never move: cases added later are assigned by the same rule among
themselves, so a case once set aside stays aside.

    python scripts/field_corpus_split.py [--root tests/field_corpus]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "tests" / "field_corpus"


def library_of(folder: Path) -> str:
    return str(json.loads((folder / "case.json").read_text(encoding="utf-8"))["library"])


def freeze(root: Path) -> dict[str, object]:
    path = root / "SPLIT.json"
    old: dict[str, object] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    validation = set(old.get("validation", []))  # type: ignore[arg-type]
    tuning = set(old.get("tuning", []))  # type: ignore[arg-type]
    fresh: dict[str, list[str]] = defaultdict(list)
    for folder in sorted(p for p in root.iterdir() if (p / "case.json").is_file()):
        if folder.name not in validation | tuning:
            fresh[library_of(folder)].append(folder.name)
    for cases in fresh.values():
        cases.sort(key=lambda name: hashlib.sha256(name.encode()).hexdigest())
        share = math.ceil(len(cases) / 3)
        validation.update(cases[:share])
        tuning.update(cases[share:])
    return {
        "rule": "per library, cases ordered by sha256(case_id); the first ceil(n/3) of each "
        "batch of new cases are validation; assignments never move",
        "frozen": old.get("frozen", datetime.date.today().isoformat()),
        "validation": sorted(validation),
        "tuning": sorted(tuning),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args()
    split = freeze(args.root)
    (args.root / "SPLIT.json").write_text(json.dumps(split, indent=1) + "\n", encoding="utf-8")
    print(f"validation {len(split['validation'])}, tuning {len(split['tuning'])}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
