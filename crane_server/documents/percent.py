"""Percent-format scripts: `# %%` lines start cells (`# %% title`, `# %% [markdown]`)."""

from __future__ import annotations

import re

from crane_server.documents.cellmap import CellMap, CellSpan
from crane_server.documents.cells import Cell, CellKind
from crane_server.documents.model import CellDocument

_MARKER = re.compile(r"^\s*#\s*%%(?!%)(?P<rest>.*)$")
_KIND = re.compile(r"\[(?P<kind>\w+)\]")


def is_percent_script(text: str) -> bool:
    """Tell whether the text has at least one `# %%` cell marker."""
    return any(_MARKER.match(line) for line in text.split("\n"))


def _kind(marker_rest: str) -> CellKind:
    match = _KIND.search(marker_rest)
    if match is None or match.group("kind").lower() in ("python", "code"):
        return "code"
    return "markdown"


def percent_script(uri: str, version: int, text: str) -> CellDocument:
    """Split a percent script into cells; code before the first marker is a cell too."""
    lines = text.replace("\r\n", "\n").split("\n")
    starts: list[tuple[int, CellKind]] = []  # (first body line, kind)
    for number, line in enumerate(lines):
        match = _MARKER.match(line)
        if match is not None:
            starts.append((number + 1, _kind(match.group("rest"))))
    if not starts or any(line.strip() for line in lines[: starts[0][0] - 1]):
        starts.insert(0, (0, "code"))
    cells: list[Cell] = []
    spans: list[CellSpan] = []
    for position, (start, kind) in enumerate(starts):
        end = starts[position + 1][0] - 1 if position + 1 < len(starts) else len(lines)
        if position + 1 < len(starts) and starts[position + 1][0] - 1 < start:
            end = start
        while end > start and not lines[end - 1].strip():
            end -= 1
        index = len(cells)
        cells.append(Cell(index=index, text="\n".join(lines[start:end]), kind=kind, uri=uri))
        spans.append(CellSpan(cell=index, start=start, line_count=end - start))
    return CellDocument(
        uri=uri, version=version, shape="percent", cells=cells, cell_map=CellMap(spans)
    )
