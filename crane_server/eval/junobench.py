"""Convert a JunoBench-style checkout into case folders.

Expected layout (ROOT is the folder given to `eval --junobench`):

    ROOT/<ground truth>.csv | .xlsx   one row per case (the first table found at ROOT)
    ROOT/<id>/...reproduced....ipynb  the crashing notebook   (or ROOT/reproduced/<id>.ipynb,
    ROOT/<id>/...fixed....ipynb       its fixed twin           or ROOT/fixed/<id>.ipynb)
    ROOT/<id>/<data files>            what the notebooks read (linked into the case folder)

Ground-truth columns are matched by name, case-insensitively: id (`case_id`, `id`, `nb_id`,
`fname`, `notebook`), `library` (or `library_cause`), exception (`expected_exception`,
`ename`, `exception`), `crash_line`, `crash_lines` (comma-separated), reason (`reason`,
`evalue`, `description`), root cause (`root_cause`, `label_root_cause`), and `target_cell`
(0-based index among code cells; default: the last code cell). Cells after the target are
dropped so that the target is the last code cell, as case folders require.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any

from crane_server.errors import DocumentError

ALIASES: dict[str, tuple[str, ...]] = {
    "case_id": ("case_id", "id", "nb_id", "case", "fname", "notebook"),
    "library": ("library", "library_cause", "lib"),
    "expected_exception": ("expected_exception", "ename", "exception", "exception_type"),
    "crash_line": ("crash_line", "line"),
    "crash_lines": ("crash_lines", "lines"),
    "reason": ("reason", "evalue", "description", "crash_reason"),
    "root_cause": ("root_cause", "label_root_cause", "cause"),
    "target_cell": ("target_cell", "target", "cell"),
}


def read_table(path: Path) -> list[dict[str, str]]:
    """Rows of a CSV or (with openpyxl installed) an xlsx file, as {header: text}."""
    if path.suffix.lower() == ".csv":
        try:
            with path.open(newline="", encoding="utf-8-sig") as handle:
                return [
                    {k.strip(): (v or "").strip() for k, v in row.items() if k}
                    for row in csv.DictReader(handle)
                ]
        except (OSError, csv.Error, UnicodeDecodeError) as exc:
            raise DocumentError(f"{path}: cannot read the table: {exc}") from exc
    if path.suffix.lower() == ".xlsx":
        return _read_xlsx(path)
    raise DocumentError(f"{path}: ground truth must be .csv or .xlsx")


def _read_xlsx(path: Path) -> list[dict[str, str]]:
    try:
        import openpyxl  # type: ignore[import-untyped,unused-ignore]
    except ImportError as exc:
        raise DocumentError(f"{path}: reading .xlsx needs openpyxl (pip install openpyxl)") from exc
    try:
        sheet = openpyxl.load_workbook(path, read_only=True, data_only=True).active
        values = [list(row) for row in sheet.iter_rows(values_only=True)]
    except Exception as exc:  # openpyxl raises many unrelated types on a bad file
        raise DocumentError(f"{path}: cannot read the workbook: {exc}") from exc
    if not values:
        return []
    header = [str(h).strip() if h is not None else "" for h in values[0]]
    rows = []
    for raw in values[1:]:
        cells = ["" if v is None else str(v).strip() for v in raw]
        if any(cells):
            rows.append({h: c for h, c in zip(header, cells) if h})
    return rows


def metadata_from_row(row: dict[str, str]) -> dict[str, Any]:
    """case.json fields from one ground-truth row."""
    lowered = {k.lower(): v for k, v in row.items()}
    meta: dict[str, Any] = {}
    for field, names in ALIASES.items():
        for name in names:
            if lowered.get(name):
                meta[field] = lowered[name]
                break
    if "case_id" in meta:
        meta["case_id"] = Path(str(meta["case_id"])).stem
    if "crash_lines" in meta:
        meta["crash_lines"] = [
            int(p)
            for p in str(meta["crash_lines"]).replace(";", ",").split(",")
            if p.strip().isdigit()
        ]
    return meta


def find_notebook(root: Path, case_id: str, variant: str) -> Path | None:
    """The case's notebook of one variant, in any of the supported places."""
    folder = root / case_id
    if folder.is_dir():
        matches = sorted(p for p in folder.glob("*.ipynb") if variant in p.name.lower())
        if matches:
            return matches[0]
    for candidate in (root / variant / f"{case_id}.ipynb", root / f"{case_id}_{variant}.ipynb"):
        if candidate.is_file():
            return candidate
    return None


def _truncate(notebook: Path, target: int | None, destination: Path) -> None:
    """Copy a notebook keeping cells up to the target code cell (the last one by default)."""
    try:
        document = json.loads(notebook.read_text(encoding="utf-8"))
        cells = document["cells"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DocumentError(f"{notebook}: not a readable notebook: {exc}") from exc
    code_positions = [i for i, c in enumerate(cells) if c.get("cell_type") == "code"]
    if target is not None and 0 <= target < len(code_positions):
        document["cells"] = cells[: code_positions[target] + 1]
    destination.write_text(json.dumps(document, indent=1), encoding="utf-8")


def convert_junobench(root: Path, destination: Path) -> Path:
    """Write one case folder per ground-truth row under `destination`; return it."""
    tables = (
        sorted(p for p in root.iterdir() if p.suffix.lower() in (".csv", ".xlsx"))
        if root.is_dir()
        else []
    )
    if not tables:
        raise DocumentError(f"{root}: no ground-truth table (.csv or .xlsx) at the top level")
    rows = read_table(tables[0])
    if not rows:
        raise DocumentError(f"{tables[0]}: the ground-truth table is empty")
    destination.mkdir(parents=True, exist_ok=True)
    for row in rows:
        meta = metadata_from_row(row)
        case_id = meta.get("case_id")
        if not case_id:
            continue
        folder = destination / str(case_id)
        folder.mkdir(exist_ok=True)
        target = meta.pop("target_cell", None)
        target_index = int(target) if target is not None and str(target).isdigit() else None
        for variant in ("reproduced", "fixed"):
            found = find_notebook(root, str(case_id), variant)
            if found is not None:
                _truncate(found, target_index, folder / f"{variant}.ipynb")
                if found.parent == root / str(case_id):
                    _link_data(found.parent, folder)
        (folder / "case.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return destination


def _link_data(source: Path, folder: Path) -> None:
    """Make the files next to the notebook visible in the case folder (symlinks)."""
    for entry in source.iterdir():
        if entry.suffix == ".ipynb" or entry.name.startswith("."):
            continue
        link = folder / entry.name
        if not link.exists():
            try:
                os.symlink(entry.resolve(), link)
            except OSError as exc:
                raise DocumentError(f"cannot link {entry} into {folder}: {exc}") from exc
