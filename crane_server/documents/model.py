"""A document made of cells, whatever its shape, and where its cells' lines live."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from crane_server.documents.cellmap import CellMap
from crane_server.documents.cells import Cell, code_cells

DocumentShape = Literal["notebook", "virtual", "percent"]


@dataclass(frozen=True)
class CellDocument:
    """Cells plus the way back from (cell, line) to (URI, line) and forth.

    For a notebook (`cell_map` None) each cell is its own document; otherwise every cell
    lives in the document `uri` at the lines `cell_map` gives.
    """

    uri: str
    version: int
    shape: DocumentShape
    cells: list[Cell]
    cell_map: CellMap | None = None
    path_hint: str | None = field(default=None)

    @property
    def code_cells(self) -> list[Cell]:
        return code_cells(self.cells)

    @property
    def checked_cells(self) -> list[Cell]:
        """The code cells with text: what the checker judges (`related_cell` indexes these)."""
        return [cell for cell in self.code_cells if cell.text.strip()]

    def cell(self, index: int) -> Cell | None:
        return self.cells[index] if 0 <= index < len(self.cells) else None

    def locate(self, cell: Cell, line: int) -> tuple[str, int] | None:
        """Return (URI, 0-based line) of line `line` (0-based) of `cell`."""
        if self.cell_map is None:
            return (cell.uri, line) if 0 <= line < cell.line_count else None
        document_line = self.cell_map.to_document(cell.index, line)
        return None if document_line is None else (self.uri, document_line)

    def find(self, uri: str, line: int) -> tuple[Cell, int] | None:
        """Return the cell and its 0-based line shown at (`uri`, `line`)."""
        if self.cell_map is None:
            for cell in self.cells:
                if cell.uri == uri:
                    return cell, line
            return None
        if uri != self.uri:
            return None
        position = self.cell_map.to_cell(line)
        if position is None:
            return None
        found = self.cell(position[0])
        return None if found is None else (found, position[1])

    def uris(self) -> list[str]:
        """Every URI diagnostics of this document are published to."""
        if self.cell_map is None:
            return [cell.uri for cell in self.cells]
        return [self.uri]
