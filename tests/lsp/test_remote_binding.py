"""The language server binds a notebook to a kernel of a real Jupyter Server (REST + websocket):
it publishes the Error, clears it when another client runs the fix, and never sends the token
over LSP."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.kernels.test_remote import SETUP, TOKEN, Server, _execute, _start_server
from tests.lsp.helpers import SERVER, Recorder, has_code, initialize_params, open_notebook

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
MISSING = "pandas-missing-column"
# The server process inherits this: the token travels by environment, never over LSP.
os.environ["CRANE_TEST_REMOTE_TOKEN"] = TOKEN


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from _start_server(tmp_path_factory.mktemp("lsp-remote"))


@pytest.fixture(scope="module")
def remote_kernel(jupyter: Server) -> str:
    kernel_id = jupyter.start_kernel()
    # Fixtures here run inside the module's event loop: this client gets a loop of its own.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _execute(jupyter.url, kernel_id, SETUP)).result(timeout=60)
    return kernel_id


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, remote_kernel: str) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), {"debounceMs": 20})
    )
    yield
    await lsp_client.shutdown_session()


async def test_a_notebook_bound_to_a_remote_kernel_gets_and_loses_its_error(
    client: LanguageClient, jupyter: Server, remote_kernel: str, tmp_path: Path
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    uri = "file:///work/remote.ipynb"
    cells = open_notebook(client, uri, [("code", "total = df['prices'].sum()")])
    status = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="crane.attachKernel",
            arguments=[
                {
                    "uri": uri,
                    "server_url": jupyter.url,
                    "kernel_id": remote_kernel,
                    "token_env": "CRANE_TEST_REMOTE_TOKEN",
                }
            ],
        )
    )
    assert status["reason"] == "command" and remote_kernel in status["detail"]
    found = await recorder.wait_for(lambda: has_code(client, cells[0], MISSING))
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert "closest existing column: 'price'" in found[0].message
    # Another client (a user in JupyterLab, say) runs the fix: the warning leaves by itself.
    await _execute(jupyter.url, remote_kernel, "df['prices'] = df['price']")
    await recorder.wait_for(lambda: not has_code(client, cells[0], MISSING))
    assert TOKEN not in repr(client.diagnostics) + repr(status)


async def test_a_wrong_token_is_an_error_response_not_a_hang(
    client: LanguageClient, jupyter: Server, remote_kernel: str
) -> None:
    other = jupyter.start_kernel()  # not attached yet: the attach must authenticate
    uri = "file:///work/remote-wrong.ipynb"
    open_notebook(client, uri, [("code", "df")])
    with pytest.raises(Exception) as raised:
        await asyncio.wait_for(
            client.workspace_execute_command_async(
                types.ExecuteCommandParams(
                    command="crane.attachKernel",
                    arguments=[
                        {
                            "uri": uri,
                            "server_url": jupyter.url,
                            "kernel_id": other,
                            "token_env": "CRANE_TEST_NO_SUCH_VARIABLE",
                        }
                    ],
                )
            ),
            30,
        )
    assert "token" in str(raised.value).lower()
