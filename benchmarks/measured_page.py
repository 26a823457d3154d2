"""Write a benchmark's table into a page between its markers (docs/measured.md)."""

from __future__ import annotations

from pathlib import Path


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
