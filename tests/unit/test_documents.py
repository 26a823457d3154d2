"""The pure document models: cell splitting and line maps for every document shape."""

from __future__ import annotations

import pytest

from crane_server.documents import (
    CellMap,
    CellSource,
    CellSpan,
    is_percent_script,
    is_virtual_document,
    notebook_document,
    percent_script,
    restore_magics,
    virtual_document,
)
from crane_server.documents.virtual import notebook_path_of

VURI = "file:///home/u/.virtual_documents/work/analysis.ipynb"


@pytest.mark.parametrize(
    ("spans", "document_line", "expected"),
    [
        pytest.param([CellSpan(0, 0, 2), CellSpan(1, 4, 3)], 0, (0, 0), id="first-line"),
        pytest.param([CellSpan(0, 0, 2), CellSpan(1, 4, 3)], 1, (0, 1), id="last-line-of-cell"),
        pytest.param([CellSpan(0, 0, 2), CellSpan(1, 4, 3)], 2, None, id="separator"),
        pytest.param([CellSpan(0, 0, 2), CellSpan(1, 4, 3)], 6, (1, 2), id="second-cell"),
        pytest.param([CellSpan(0, 0, 2), CellSpan(1, 4, 3)], 7, None, id="past-end"),
        pytest.param([CellSpan(0, 3, 1)], 0, None, id="before-first"),
    ],
)
def test_cell_map_to_cell(
    spans: list[CellSpan], document_line: int, expected: tuple[int, int] | None
) -> None:
    assert CellMap(spans).to_cell(document_line) == expected


@pytest.mark.parametrize(
    ("cell", "line", "expected"),
    [
        pytest.param(0, 0, 0, id="start"),
        pytest.param(1, 2, 6, id="inside"),
        pytest.param(1, 3, None, id="line-out-of-cell"),
        pytest.param(5, 0, None, id="unknown-cell"),
    ],
)
def test_cell_map_to_document(cell: int, line: int, expected: int | None) -> None:
    cell_map = CellMap([CellSpan(0, 0, 2), CellSpan(1, 4, 3)])
    assert cell_map.to_document(cell, line) == expected
    if expected is not None:
        assert cell_map.to_cell(expected) == (cell, line)


@pytest.mark.parametrize(
    ("uri", "language_id", "expected"),
    [
        pytest.param(VURI, "python", True, id="documents-on-disk"),
        pytest.param(
            "file:///r/.virtual_documents/a%20b.ipynb.py", None, True, id="old-style-quoted"
        ),
        # requires_documents_on_disk: false, as crane's spec asks (measured in JupyterLab 4.6)
        pytest.param("file:///home/u/work/analysis.ipynb", "python", True, id="not-on-disk"),
        pytest.param("file:///home/u/a%20b.ipynb", "ipython", True, id="not-on-disk-quoted"),
        pytest.param("file:///r/notebook.ipynb", "json", False, id="raw-notebook-json"),
        pytest.param("file:///r/.virtual_documents/x.py", "python", False, id="not-a-notebook"),
        pytest.param("file:///r/script.py", "python", False, id="script"),
    ],
)
def test_is_virtual_document(uri: str, language_id: str | None, expected: bool) -> None:
    assert is_virtual_document(uri, language_id) is expected


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        pytest.param(VURI, "work/analysis.ipynb", id="server-relative"),
        pytest.param("file:///r/.virtual_documents/a%20b.ipynb.py", "a b.ipynb", id="old-style"),
        pytest.param("file:///home/u/work/analysis.ipynb", "/home/u/work/analysis.ipynb", id="abs"),
    ],
)
def test_notebook_path_of(uri: str, path: str) -> None:
    assert notebook_path_of(uri) == path


@pytest.mark.parametrize(
    ("virtual", "original"),
    [
        pytest.param(
            'get_ipython().run_line_magic("matplotlib", "inline")', "%matplotlib inline", id="line"
        ),
        pytest.param(
            'get_ipython().run_line_magic("time", "x = f(\\"a\\")")',
            '%time x = f("a")',
            id="escaped",
        ),
        pytest.param(
            'files = get_ipython().getoutput("ls -l")', "files = !ls -l", id="shell-assign"
        ),
        pytest.param('get_ipython().run_line_magic("pinfo", "df")', "df?", id="pinfo"),
        pytest.param('get_ipython().run_line_magic("pinfo2", "df")', "df??", id="pinfo2"),
        pytest.param(
            'get_ipython().run_cell_magic("timeit", "-n1", """\nx = 1\ny = 2""")',
            "%%timeit -n1\nx = 1\ny = 2",
            id="cell-magic",
        ),
        pytest.param("x = 1\nprint(x)", "x = 1\nprint(x)", id="plain"),
    ],
)
def test_restore_magics(virtual: str, original: str) -> None:
    restored = restore_magics(virtual)
    assert restored == original
    assert len(restored.split("\n")) == len(virtual.split("\n"))


@pytest.mark.parametrize(
    ("text", "cells", "starts"),
    [
        pytest.param("a = 1\n\n\nb = 2\n", ["a = 1", "b = 2"], [0, 3], id="two-cells"),
        pytest.param("a = 1\n\nb = 2", ["a = 1\n\nb = 2"], [0], id="one-blank-line-inside"),
        pytest.param("", [], [], id="empty"),
        pytest.param("\n\n\nx\n\n\n\n\ny", ["x", "y"], [3, 8], id="leading-and-empty-cells"),
        pytest.param(
            "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2",
            ["import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2"],
            [0],
            id="pep8-functions-stay-together",
        ),
        pytest.param(
            "for i in x:\n    a = 1\n\n\n    b = 2",
            ["for i in x:\n    a = 1\n\n\n    b = 2"],
            [0],
            id="indented-continuation",
        ),
        pytest.param(
            'get_ipython().run_line_magic("matplotlib", "inline")\n\n\ndf["a"]',
            ["%matplotlib inline", 'df["a"]'],
            [0, 3],
            id="magic-restored",
        ),
    ],
)
def test_virtual_document_cells(text: str, cells: list[str], starts: list[int]) -> None:
    document = virtual_document(VURI, 3, text)
    assert [cell.text for cell in document.cells] == cells
    assert document.cell_map is not None
    assert [span.start for span in document.cell_map.spans] == starts
    assert document.path_hint == "work/analysis.ipynb"
    for cell in document.cells:
        for line in range(cell.line_count):
            location = document.locate(cell, line)
            assert location is not None
            assert location[0] == VURI
            found = document.find(VURI, location[1])
            assert found is not None
            assert (found[0].index, found[1]) == (cell.index, line)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("# %%\nx = 1\n# %%\ny", [("code", "x = 1", 1), ("code", "y", 3)], id="basic"),
        pytest.param(
            "import a\n# %% Load data\ndf = 1\n\n# %% [markdown]\n# Title\n",
            [("code", "import a", 0), ("code", "df = 1", 2), ("markdown", "# Title", 5)],
            id="preamble-title-markdown",
        ),
        pytest.param("\n# %%\nx\n", [("code", "x", 2)], id="blank-preamble-dropped"),
        pytest.param("#%% [python]\nx", [("code", "x", 1)], id="no-space-explicit-python"),
        pytest.param("# %%\n# %%\nz", [("code", "", 1), ("code", "z", 2)], id="empty-cell"),
        pytest.param("# %%% not a marker\nx", [("code", "# %%% not a marker\nx", 0)], id="triple"),
    ],
)
def test_percent_script_cells(text: str, expected: list[tuple[str, str, int]]) -> None:
    uri = "file:///w/s.py"
    document = percent_script(uri, 1, text)
    got = []
    for cell in document.cells:
        span = document.cell_map.span(cell.index) if document.cell_map else None
        assert span is not None
        got.append((cell.kind, cell.text, span.start))
    assert got == expected
    assert is_percent_script(text) is ("# %%\n" in text or "#%%" in text or "# %% " in text)


def test_notebook_document_cells_and_locations() -> None:
    sources = [
        CellSource("vscode-notebook-cell:/n.ipynb#a", "code", "x = 1\ny = 2"),
        CellSource("vscode-notebook-cell:/n.ipynb#b", "markdown", "# hi", "markdown"),
        CellSource("vscode-notebook-cell:/n.ipynb#c", "code", "select 1", "sql"),
        CellSource("vscode-notebook-cell:/n.ipynb#d", "code", "z"),
    ]
    document = notebook_document("file:///n.ipynb", 7, sources)
    assert [cell.index for cell in document.code_cells] == [0, 3]
    assert document.locate(document.cells[0], 1) == ("vscode-notebook-cell:/n.ipynb#a", 1)
    assert document.locate(document.cells[0], 2) is None
    found = document.find("vscode-notebook-cell:/n.ipynb#d", 0)
    assert found is not None and found[0].index == 3
    assert document.find("vscode-notebook-cell:/n.ipynb#zz", 0) is None
    assert document.uris() == [source.uri for source in sources]
