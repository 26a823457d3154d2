"""Pure models of the documents an editor sends: notebooks, virtual documents, percent scripts.

Every shape becomes a `CellDocument`: a list of `Cell`s plus the mapping between a cell's
lines and the lines (and URIs) the editor shows.
"""

from crane_server.documents.cellmap import CellMap, CellSpan
from crane_server.documents.cells import Cell, CellKind, code_cells, normalise_source
from crane_server.documents.magics import restore_magics
from crane_server.documents.model import CellDocument, DocumentShape
from crane_server.documents.notebook import NOTEBOOK_TYPES, CellSource, notebook_document
from crane_server.documents.percent import is_percent_script, percent_script
from crane_server.documents.virtual import is_virtual_document, virtual_document

__all__ = [
    "NOTEBOOK_TYPES",
    "Cell",
    "CellDocument",
    "CellKind",
    "CellMap",
    "CellSource",
    "CellSpan",
    "DocumentShape",
    "code_cells",
    "is_percent_script",
    "is_virtual_document",
    "normalise_source",
    "notebook_document",
    "percent_script",
    "restore_magics",
    "virtual_document",
]
