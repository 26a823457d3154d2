"""Pull diagnostics (`diagnostics: pull`) under VS Code's capabilities: refresh, then pull."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import RunningKernel
from tests.lsp.helpers import SERVER, Recorder, initialize_params, open_notebook

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]


@pytest.fixture(scope="module")
def pull_kernel(shared_kernel: RunningKernel) -> RunningKernel:
    code = "import pandas as pd\npulled = pd.DataFrame({'a': [1, 2]})"
    assert shared_kernel.execute(code)["status"] == "ok"
    return shared_kernel


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, pull_kernel: RunningKernel) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    capabilities = client_capabilities("visual-studio-code")
    capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities()  # type: ignore[union-attr]
    capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(  # type: ignore[union-attr]
        refresh_support=True
    )
    options = {
        "connection_file": str(pull_kernel.connection_file),
        "debounce_ms": 20,
        "diagnostics": "pull",
    }
    await lsp_client.initialize_session(initialize_params(capabilities, options))
    yield
    await lsp_client.shutdown_session()


async def pull(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(
        report, types.RelatedFullDocumentDiagnosticReport | types.FullDocumentDiagnosticReport
    )
    return [d for d in report.items if d.source == "crane"]


async def test_refresh_then_pull_follows_the_kernel(
    client: LanguageClient, pull_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    cells = open_notebook(client, "file:///work/pull.ipynb", [("code", "pulled['b'].sum()")])
    await recorder.wait_for(lambda: client.diagnostic_refresh_count > 0)
    items = await pull(client, cells[0])
    assert [d.code for d in items] == ["pandas-missing-column"]
    assert cells[0] not in client.diagnostics  # nothing pushed in pull mode

    refreshes = client.diagnostic_refresh_count
    await asyncio.to_thread(pull_kernel.execute, "pulled['b'] = 3")
    await recorder.wait_for(lambda: client.diagnostic_refresh_count > refreshes)
    assert await pull(client, cells[0]) == []
