"""A percent-format script under Neovim 0.7's recorded capabilities, against a real kernel."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import RunningKernel
from tests.lsp.helpers import SERVER, Recorder, initialize_params, text_document_scenario

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
URI = "file:///home/me/project/analysis.py"


@pytest.fixture(scope="module")
def frame_kernel(shared_kernel: RunningKernel) -> RunningKernel:
    code = (
        "import pandas as pd\nsales_p = pd.DataFrame({'price': [1.0, 2.0], 'revenue_usd': [3, 4]})"
    )
    assert shared_kernel.execute(code)["status"] == "ok"
    return shared_kernel


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, frame_kernel: RunningKernel) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("neovim@v0.7.0"), {"debounce_ms": 20})
    )
    yield
    await lsp_client.shutdown_session()


def render_percent(cells: list[str]) -> tuple[str, list[int]]:
    lines: list[str] = ['"""A script."""']
    starts = []
    for number, cell in enumerate(cells):
        lines.append(f"# %% step {number}")
        starts.append(len(lines))
        lines.extend(cell.split("\n"))
        lines.append("")
    lines += ["# %% [markdown]", "# sales['nope'] is prose, not code"]
    return "\n".join(lines) + "\n", starts


async def test_percent_script_end_to_end(
    client: LanguageClient, frame_kernel: RunningKernel
) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=URI, language_id="python", version=0, text="# %%\n"
            )
        )
    )
    status = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="crane.attachKernel",
            arguments=[{"uri": URI, "connection_file": str(frame_kernel.connection_file)}],
        )
    )
    assert status["state"] in ("idle", "busy")
    assert status["reason"] == "command"
    await text_document_scenario(client, frame_kernel, URI, render_percent, "sales_p")
