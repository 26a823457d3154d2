"""Datasets of case folders: `DATASET/<case_id>/{reproduced,fixed}.ipynb` plus `case.json`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from crane_server.errors import DocumentError

VARIANTS: tuple[str, str] = ("reproduced", "fixed")


@dataclass(frozen=True)
class Case:
    """One crash case and what is known about the expected crash."""

    case_id: str
    folder: Path
    library: str = ""
    expected_exception: str | None = None
    crash_line: int | None = None
    crash_lines: tuple[int, ...] = ()
    reason: str = ""
    root_cause: str | None = None
    target_identical: bool = False
    problems: tuple[str, ...] = field(default=())

    def notebook(self, variant: str) -> Path:
        return self.folder / f"{variant}.ipynb"

    @property
    def expected_lines(self) -> frozenset[int]:
        """Every line that counts as the right crash line."""
        lines = set(self.crash_lines)
        if self.crash_line is not None:
            lines.add(self.crash_line)
        return frozenset(lines)

    @property
    def auto_judgeable(self) -> bool:
        """True when the diagnosis can be judged from exception type and line alone."""
        return self.expected_exception is not None and bool(self.expected_lines)


def _optional_int(value: object) -> int | None:
    if isinstance(value, bool) or value is None or value == "":
        return None
    try:
        return int(str(value).strip().split(".")[0])
    except ValueError:
        return None


def case_from_metadata(folder: Path, meta: dict[str, object]) -> Case:
    """Build a Case from `case.json`-style metadata (unknown keys are ignored)."""
    raw_lines = meta.get("crash_lines") or []
    lines = raw_lines if isinstance(raw_lines, list) else [raw_lines]
    crash_lines = tuple(n for n in (_optional_int(v) for v in lines) if n is not None)
    exception = meta.get("expected_exception")
    root_cause = meta.get("root_cause")
    return Case(
        case_id=str(meta.get("case_id") or folder.name),
        folder=folder,
        library=str(meta.get("library") or ""),
        expected_exception=str(exception).strip() if exception else None,
        crash_line=_optional_int(meta.get("crash_line")),
        crash_lines=crash_lines,
        reason=str(meta.get("reason") or ""),
        root_cause=str(root_cause) if root_cause else None,
        target_identical=bool(meta.get("target_identical", False)),
    )


def load_case(folder: Path) -> Case:
    """Read one case folder; problems (missing notebook, bad case.json) are recorded, not raised."""
    problems: list[str] = []
    meta: dict[str, object] = {}
    meta_path = folder / "case.json"
    if meta_path.is_file():
        try:
            loaded = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            problems.append(f"case.json unreadable: {exc}")
        else:
            if isinstance(loaded, dict):
                meta = loaded
            else:
                problems.append("case.json is not a JSON object")
    else:
        problems.append("case.json missing")
    case = case_from_metadata(folder, meta)
    problems.extend(
        f"{variant}.ipynb missing" for variant in VARIANTS if not case.notebook(variant).is_file()
    )
    return Case(**{**case.__dict__, "problems": tuple(problems)})


def load_dataset(dataset: Path) -> list[Case]:
    """Every case folder under `dataset`, sorted by case id.

    A folder counts as a case when it holds `case.json` or any `.ipynb`; a dataset that is
    itself a case folder is a dataset of one.
    """
    if not dataset.is_dir():
        raise DocumentError(f"{dataset}: not a directory")
    if _looks_like_case(dataset):
        return [load_case(dataset)]
    cases = [load_case(child) for child in sorted(dataset.iterdir()) if _looks_like_case(child)]
    if not cases:
        raise DocumentError(f"{dataset}: no case folders (expected <case>/reproduced.ipynb)")
    return sorted(cases, key=lambda c: c.case_id)


def _looks_like_case(folder: Path) -> bool:
    if not folder.is_dir():
        return False
    return (folder / "case.json").is_file() or any(folder.glob("*.ipynb"))


SPLIT_FILE = "SPLIT.json"


def select_split(cases: list[Case], dataset: Path, split: str) -> list[Case]:
    """The cases `DATASET/SPLIT.json` lists under `split` (e.g. "validation", "tuning")."""
    import json

    path = dataset / SPLIT_FILE
    try:
        listed = json.loads(path.read_text(encoding="utf-8"))[split]
    except (OSError, ValueError) as exc:
        raise DocumentError(f"{path}: cannot read the split file: {exc}") from exc
    except (KeyError, TypeError) as exc:
        raise DocumentError(f"{path}: no split named {split!r}") from exc
    if not isinstance(listed, list) or not all(isinstance(item, str) for item in listed):
        raise DocumentError(f"{path}: {split!r} must be a list of case ids")
    known = {case.case_id: case for case in cases}
    missing = sorted(set(listed) - set(known))
    if missing:
        raise DocumentError(f"{path}: {split!r} names cases that are not there: {missing[:5]}")
    return [known[case_id] for case_id in sorted(listed)]
