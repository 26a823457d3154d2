"""A jupyterlab-lsp virtual document (push diagnostics only) against a real kernel."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from pytest_lsp import LanguageClient

from crane_server.documents import virtual_document
from tests.conftest import RunningKernel
from tests.lsp.helpers import (
    SERVER,
    Recorder,
    initialize_params,
    push_only_capabilities,
    text_document_scenario,
)

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
URI = "file:///home/me/project/.virtual_documents/reports/sales.ipynb"


@pytest.fixture(scope="module")
def frame_kernel(shared_kernel: RunningKernel) -> RunningKernel:
    code = (
        "import pandas as pd\nsales_v = pd.DataFrame({'price': [1.0, 2.0], 'revenue_usd': [3, 4]})"
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


async def test_virtual_document_end_to_end(
    client: LanguageClient, frame_kernel: RunningKernel
) -> None:
    await text_document_scenario(client, frame_kernel, URI, render_virtual, "sales_v")
