"""Write the crash/fixed case corpus under tests/corpus/ (case folders as in DESIGN.md).

The cases themselves are Python data in the package beside this script, scripts/corpus/:
``build.py`` (the Case dataclass, the crash markers ``#<`` / ``#<call``, the folder writer),
``data.py`` (shared set-up cells) and one ``*_cases.py`` module per family; its
``__init__.py`` lists them in corpus order.

Run: python scripts/make_corpus.py [--out tests/corpus]. The corpus test
(tests/checker/test_corpus_real.py) runs every notebook for real to prove each claim.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

# The package sits beside this script, which is run by path (and loaded by path by the tests).
_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from corpus import all_cases  # noqa: E402
from corpus.build import Case, write_case  # noqa: E402

__all__ = ["Case", "all_cases", "main", "write_case"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = Path(__file__).resolve().parent.parent
    parser.add_argument("--out", type=Path, default=root / "tests" / "corpus")
    args = parser.parse_args()
    cases = all_cases()
    ids = [case.case_id for case in cases]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise SystemExit(f"duplicate case ids: {sorted(duplicates)}")
    out: Path = args.out
    if out.exists():
        for child in out.iterdir():
            if child.is_dir() and (child / "case.json").exists():
                shutil.rmtree(child)
    out.mkdir(parents=True, exist_ok=True)
    for case in cases:
        write_case(case, out)
    print(f"wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
