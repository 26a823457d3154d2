"""Map positions between cells and the one document that holds them, both ways."""

from __future__ import annotations

import bisect
from dataclasses import dataclass


@dataclass(frozen=True)
class CellSpan:
    """Cell `cell` occupies document lines [start, start + line_count)."""

    cell: int
    start: int
    line_count: int

    @property
    def end(self) -> int:
        return self.start + self.line_count


class CellMap:
    """Line mapping between (cell index, line in cell) and lines of a joined document.

    All lines are 0-based. Document lines that belong to no cell (separators, `# %%`
    markers) map to None.
    """

    def __init__(self, spans: list[CellSpan]) -> None:
        self._spans = sorted(spans, key=lambda span: span.start)
        self._starts = [span.start for span in self._spans]
        self._by_cell = {span.cell: span for span in self._spans}

    @property
    def spans(self) -> list[CellSpan]:
        return list(self._spans)

    def span(self, cell: int) -> CellSpan | None:
        return self._by_cell.get(cell)

    def to_document(self, cell: int, line: int) -> int | None:
        """Return the document line of line `line` of cell `cell`, or None if out of range."""
        span = self._by_cell.get(cell)
        if span is None or not 0 <= line < span.line_count:
            return None
        return span.start + line

    def to_cell(self, document_line: int) -> tuple[int, int] | None:
        """Return (cell, line in cell) for a document line, or None outside every cell."""
        position = bisect.bisect_right(self._starts, document_line) - 1
        if position < 0:
            return None
        span = self._spans[position]
        if document_line >= span.end:
            return None
        return span.cell, document_line - span.start
