"""jupyterlab-lsp's virtual document: a notebook's code cells joined into one Python file.

jupyterlab-lsp names the document after the notebook: `<root>/<path>.ipynb` when the server's
spec has `requires_documents_on_disk: false` (crane's spec; nothing is written next to the
notebook), `<root>/.virtual_documents/<path>.ipynb` when it is true (jupyter-lsp then writes
shadow copies there), and `.ipynb.py` with older versions. Code cells are separated by two
blank lines and magics are rewritten (see `magics`). The `.ipynb` itself is never read: the
cells come from the text alone. Notebook cells of LSP notebook sync never reach this module:
the notebook owns them.

Splitting is ambiguous when a cell itself contains two consecutive blank lines (PEP 8
spacing between functions). A fragment that starts indented, or with `def`, `class` or a
decorator, is therefore kept with the fragment before it: judging two real cells as one can
only hide a crash, never invent one.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlparse

from crane_server.documents.cellmap import CellMap, CellSpan
from crane_server.documents.cells import Cell
from crane_server.documents.magics import restore_magics
from crane_server.documents.model import CellDocument

VIRTUAL_DIR = ".virtual_documents/"
_CONTINUATION = re.compile(r"^(\s+\S|@|def\s|async\s+def\s|class\s)")


# Language ids under which jupyterlab-lsp sends a notebook's joined code cells.
PYTHON_LANGUAGE_IDS = frozenset({"python", "ipython", "python3"})


def is_virtual_document(uri: str, language_id: str | None = None) -> bool:
    """Tell whether a text document `uri` is jupyterlab-lsp's joined document of a notebook.

    A `.ipynb` text document outside `.virtual_documents/` counts only with a Python
    language id: an editor that opens the notebook file as raw JSON says `json`.
    """
    path = unquote(urlparse(uri).path or uri)
    if not (path.endswith(".ipynb") or path.endswith(".ipynb.py")):
        return False
    if VIRTUAL_DIR in path:
        return True
    return language_id is None or language_id.lower() in PYTHON_LANGUAGE_IDS


def notebook_path_of(uri: str) -> str:
    """The notebook's path from the document URI: server-relative under `.virtual_documents/`,
    else the URI's own (absolute) path."""
    path = unquote(urlparse(uri).path or uri)
    if VIRTUAL_DIR in path:
        path = path.split(VIRTUAL_DIR, 1)[1]
    return path[: -len(".py")] if path.endswith(".ipynb.py") else path


def _fragments(lines: list[str]) -> list[tuple[int, int]]:
    """Return [start, end) line ranges of text separated by two or more blank lines."""
    fragments: list[tuple[int, int]] = []
    start: int | None = None
    blank_run = 0
    last_text = -1
    for number, line in enumerate(lines):
        if line.strip():
            if start is None:
                start = number
            elif blank_run >= 2:
                fragments.append((start, last_text + 1))
                start = number
            blank_run = 0
            last_text = number
        else:
            blank_run += 1
    if start is not None:
        fragments.append((start, last_text + 1))
    return fragments


def _merge_continuations(
    lines: list[str], fragments: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in fragments:
        if merged and _CONTINUATION.match(lines[start]):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def virtual_document(uri: str, version: int, text: str) -> CellDocument:
    """Split a virtual document into its code cells, with magics restored."""
    lines = text.replace("\r\n", "\n").split("\n")
    cells: list[Cell] = []
    spans: list[CellSpan] = []
    for index, (start, end) in enumerate(_merge_continuations(lines, _fragments(lines))):
        source = restore_magics("\n".join(lines[start:end]))
        cells.append(Cell(index=index, text=source, uri=uri))
        spans.append(CellSpan(cell=index, start=start, line_count=end - start))
    return CellDocument(
        uri=uri,
        version=version,
        shape="virtual",
        cells=cells,
        cell_map=CellMap(spans),
        path_hint=notebook_path_of(uri),
    )
