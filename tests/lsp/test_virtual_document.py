"""A jupyterlab-lsp virtual document (push diagnostics only) against a real kernel."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from crane_server.documents import virtual_document
from tests.conftest import RunningKernel
from tests.lsp.helpers import (
    SERVER,
    Recorder,
    crane_diagnostics,
    has_code,
    initialize_params,
    open_notebook,
    push_only_capabilities,
    text_document_scenario,
    text_item,
)

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
URI = "file:///home/me/project/.virtual_documents/reports/sales.ipynb"


@pytest.fixture(scope="module")
def frame_kernel(shared_kernel: RunningKernel) -> RunningKernel:
    # One frame per URI shape: each scenario adds the column it first reports missing.
    code = (
        "import pandas as pd\n"
        "sales_v = pd.DataFrame({'price': [1.0, 2.0], 'revenue_usd': [3, 4]})\n"
        "sales_w = sales_v.copy()"
    )
    assert shared_kernel.execute(code)["status"] == "ok"
    return shared_kernel


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, frame_kernel: RunningKernel) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    options = {"crane": {"connection_file": str(frame_kernel.connection_file), "debounce_ms": 20}}
    await lsp_client.initialize_session(initialize_params(push_only_capabilities(), options))
    yield
    await lsp_client.shutdown_session()


def render_virtual(cells: list[str]) -> tuple[str, list[int]]:
    """Join cells the way jupyterlab-lsp does, with a magic in the first cell."""
    cells = [cells[0] + '\nget_ipython().run_line_magic("matplotlib", "inline")', *cells[1:]]
    starts, line = [], 0
    for cell in cells:
        starts.append(line)
        line += cell.count("\n") + 3
    return "\n\n\n".join(cells) + "\n", starts


async def test_render_matches_the_parser() -> None:
    text, starts = render_virtual(["a = 1", "b = 2", "c = 3"])
    document = virtual_document(URI, 1, text)
    assert document.cell_map is not None
    assert [span.start for span in document.cell_map.spans] == starts
    assert document.cells[0].text == "a = 1\n%matplotlib inline"


@pytest.mark.parametrize(
    ("uri", "frame"),
    [
        pytest.param(URI, "sales_v", id="requires-documents-on-disk"),
        # What JupyterLab 4 + jupyterlab-lsp send with crane's spec (no documents on disk).
        pytest.param("file:///home/me/project/reports/sales.ipynb", "sales_w", id="not-on-disk"),
    ],
)
async def test_virtual_document_end_to_end(
    client: LanguageClient, frame_kernel: RunningKernel, uri: str, frame: str
) -> None:
    await text_document_scenario(client, frame_kernel, uri, render_virtual, frame)


@pytest.mark.parametrize(
    ("uri", "language"),
    [
        pytest.param("file:///home/me/project/plain.py", "python", id="script-without-cells"),
        pytest.param("file:///home/me/project/raw.ipynb", "json", id="notebook-as-json"),
    ],
)
async def test_a_document_it_cannot_map_is_logged(
    client: LanguageClient, uri: str, language: str
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=text_item(uri, "x = 1\n", language=language))
    )

    def logged() -> list[str]:
        return [
            m.message
            for m in client.log_messages
            if "not checking" in m.message and uri in m.message
        ]

    messages = await recorder.wait_for(logged)
    assert len(messages) == 1, messages
    assert uri not in client.diagnostics or not client.diagnostics[uri]


async def test_vscode_notebook_with_a_file_uri_stays_a_notebook(client: LanguageClient) -> None:
    """A notebookDocument named `file:///....ipynb` is checked per cell, never as a joined text."""
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    uri = "file:///home/me/project/reports/vscode.ipynb"
    cells = open_notebook(
        client, uri, [("code", "import pandas as pd"), ("code", "sales_v['nope']")]
    )
    found = await recorder.wait_for(lambda: has_code(client, cells[1], "pandas-missing-column"))
    assert found[0].range.start.line == 0
    assert not crane_diagnostics(client, uri)
    assert not [m for m in client.log_messages if "not checking" in m.message and uri in m.message]
