"""The one model of a notebook cell shared by every document shape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CellKind = Literal["code", "markdown"]


@dataclass(frozen=True)
class Cell:
    """One cell: its position among all cells, its text and where it lives.

    `uri` is the cell's own document URI (LSP notebook sync) or the URI of the document
    that contains it (virtual documents, percent scripts). `executed_unchanged` says that
    the kernel already ran exactly this text.
    """

    index: int
    text: str
    kind: CellKind = "code"
    uri: str = ""
    language: str = "python"
    executed_unchanged: bool = False

    @property
    def is_code(self) -> bool:
        return self.kind == "code" and self.language == "python"

    @property
    def line_count(self) -> int:
        return len(self.text.split("\n"))


def code_cells(cells: list[Cell]) -> list[Cell]:
    """Return the Python code cells, in order."""
    return [cell for cell in cells if cell.is_code]


def normalise_source(text: str) -> str:
    """The form in which cell texts are compared with what the kernel ran."""
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))
