"""Write a benchmark's table into a page between its markers (docs/measured.md), and the
helpers the benchmarks' quick mode shares.

Every script in benchmarks/ takes `--quick`: small sizes and few repetitions, the real code
path end to end, exit status non-zero on any error and never because of a time. CI runs them
all with `scripts/bench-quick`. In quick mode a benchmark that writes the measured page writes
a temporary copy of it (`quick_page`), never the committed docs/measured.md, and data sets
default to the few cases of tests/corpus that `quick_dataset` links into a temporary folder.

Run: python benchmarks/measured_page.py [--quick] (either way: tests `write_between_markers` on
a copy of docs/measured.md, every marker pair of the page rewritten and read back).
"""

from __future__ import annotations

import argparse
import atexit
import re
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "measured.md"
CORPUS = REPO / "tests" / "corpus"
#: Small, fast tests/corpus cases (pandas, numpy, scikit-learn, plain Python) for quick runs.
QUICK_CASES = (
    "pandas_01_getitem_wrong_case",
    "numpy_04_reshape_incompatible",
    "NBspecific_01_split_cell_not_run",
)
_MARKER = re.compile(r"<!-- ([\w-]+):start -->")


def write_between_markers(path: Path, name: str, table: str) -> None:
    """Replace the text between `<!-- name:start -->` and `<!-- name:end -->` of an existing
    page, or write the table as a new file."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if start in text and end in text:
        head, _, rest = text.partition(start)
        _, _, tail = rest.partition(end)
        path.write_text(f"{head}{start}\n{table}{end}{tail}", encoding="utf-8")
    else:
        path.write_text(table, encoding="utf-8")


def quick_page() -> Path:
    """A temporary copy of docs/measured.md for a quick run to write into (never the page);
    removed when the process exits."""
    folder = Path(tempfile.mkdtemp(prefix="crane-bench-page-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    copy = folder / PAGE.name
    copy.write_text(PAGE.read_text(encoding="utf-8"), encoding="utf-8")
    return copy


def check_written(path: Path, name: str, table: str) -> None:
    """Raise unless `path` holds `table` between the `name` markers, each marker once."""
    text = path.read_text(encoding="utf-8")
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if text.count(start) != 1 or text.count(end) != 1:
        raise RuntimeError(f"{path}: the {name} markers are missing or repeated")
    if f"{start}\n{table}{end}" not in text:
        raise RuntimeError(f"{path}: the {name} table was not written between its markers")


def write_table(path: Path, name: str, table: str, *, quick: bool) -> None:
    """Write `table` between the `name` markers of `path`; in a quick run, also read it back
    (the page is then a temporary copy) and say where it went."""
    write_between_markers(path, name, table)
    if quick:
        check_written(path, name, table)
        print(f"table written into a copy of the page, {path}")


def quick_dataset(names: tuple[str, ...] = QUICK_CASES) -> Path:
    """A temporary dataset folder linking the named case folders of tests/corpus (vendored in
    the repository, so CI has them; ../shared/bench may be absent there)."""
    folder = Path(tempfile.mkdtemp(prefix="crane-bench-cases-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for name in names:
        case = CORPUS / name
        if not (case / "case.json").is_file():
            raise FileNotFoundError(f"quick dataset: no case folder {case}")
        (folder / name).symlink_to(case, target_is_directory=True)
    return folder


def self_test() -> int:
    """Rewrite every marker pair of a copy of the page and check each table landed."""
    copy = quick_page()
    names = _MARKER.findall(copy.read_text(encoding="utf-8"))
    if not names:
        print(f"no <!-- NAME:start --> markers in {PAGE}", file=sys.stderr)
        return 1
    for name in names:
        table = f"| quick | {name} |\n|---|---|\n"
        write_between_markers(copy, name, table)
        check_written(copy, name, table)
    fresh = copy.with_name("new.md")
    write_between_markers(fresh, "absent", "| a |\n")
    if fresh.read_text(encoding="utf-8") != "| a |\n":
        print("a page without markers was not written as a new file", file=sys.stderr)
        return 1
    print(f"{len(names)} marker pairs rewritten in a copy of {PAGE.name}: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the same self-test (for CI)")
    parser.parse_args()
    sys.exit(self_test())
