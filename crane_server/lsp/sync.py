"""Build cell documents from what pygls's workspace holds after each sync message."""

from __future__ import annotations

from urllib.parse import unquote

from lsprotocol import types
from pygls.workspace import Workspace

from crane_server.documents import (
    NOTEBOOK_TYPES,
    CellDocument,
    CellKind,
    CellSource,
    is_percent_script,
    is_virtual_document,
    notebook_document,
    percent_script,
    virtual_document,
)
from crane_server.documents.notebook import notebook_path


def notebook_from_workspace(workspace: Workspace, uri: str) -> CellDocument | None:
    """The notebook `uri` as a cell document, or None for an unknown or foreign notebook."""
    notebook = workspace.get_notebook_document(notebook_uri=uri)
    if notebook is None or notebook.notebook_type not in NOTEBOOK_TYPES:
        return None
    sources = []
    for cell in notebook.cells:
        text_document = workspace.text_documents.get(unquote(cell.document))
        if text_document is None:
            continue
        kind: CellKind = "code" if cell.kind == types.NotebookCellKind.Code else "markdown"
        language = text_document.language_id or ("python" if kind == "code" else "markdown")
        sources.append(CellSource(cell.document, kind, text_document.source, language))
    return notebook_document(uri, notebook.version, sources, path_hint=notebook_path(uri))


def text_from_workspace(workspace: Workspace, uri: str) -> CellDocument | None:
    """A plain text document as a virtual document or percent script; None otherwise."""
    if workspace.get_notebook_document(cell_uri=uri) is not None:
        return None  # a notebook cell: the notebook handles it
    text_document = workspace.text_documents.get(unquote(uri))
    if text_document is None:
        return None
    version = text_document.version or 0
    if is_virtual_document(uri, text_document.language_id):
        return virtual_document(uri, version, text_document.source)
    if text_document.language_id in (None, "python") and is_percent_script(text_document.source):
        document = percent_script(uri, version, text_document.source)
        return CellDocument(
            uri=document.uri,
            version=document.version,
            shape=document.shape,
            cells=document.cells,
            cell_map=document.cell_map,
            path_hint=notebook_path(uri),
        )
    return None


def unmapped_reason(workspace: Workspace, uri: str) -> str | None:
    """Why a text document is not checked, for the log; None for cells a notebook owns."""
    if workspace.get_notebook_document(cell_uri=uri) is not None:
        return None
    text_document = workspace.text_documents.get(unquote(uri))
    language = text_document.language_id if text_document is not None else None
    return (
        f"crane: not checking {uri} (language {language or 'unknown'}): it is neither a "
        "notebook, nor jupyterlab-lsp's document of a notebook (*.ipynb), nor a Python script "
        "with `# %%` cells"
    )
