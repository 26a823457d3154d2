"""Notebooks synchronised through LSP 3.17 notebook document sync: one document per cell."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from crane_server.documents.cells import Cell, CellKind
from crane_server.documents.model import CellDocument

NOTEBOOK_TYPES = ("jupyter-notebook", "interactive")


@dataclass(frozen=True)
class CellSource:
    """What the client says about one notebook cell."""

    uri: str
    kind: CellKind
    text: str
    language: str = "python"


def notebook_document(
    uri: str, version: int, sources: Sequence[CellSource], *, path_hint: str | None = None
) -> CellDocument:
    """Build the cell model of a notebook from its cells, in notebook order."""
    cells = [
        Cell(index=i, text=s.text, kind=s.kind, uri=s.uri, language=s.language)
        for i, s in enumerate(sources)
    ]
    return CellDocument(
        uri=uri, version=version, shape="notebook", cells=cells, path_hint=path_hint
    )


def notebook_path(uri: str) -> str | None:
    """Return the local file path of a `file:` notebook URI."""
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return unquote(parsed.path)
