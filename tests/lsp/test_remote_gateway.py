"""The language server and a kernel of a real Jupyter Enterprise Gateway (from `.eg-venv/`):
bound by `crane.attachKernel`, it publishes the Error, follows a restart through the gateway,
and says in one line, without hanging, when the kernel is shut down or the gateway stops."""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.kernels.test_remote import (
    SETUP,
    TOKEN,
    Server,
    _execute,
    start_gateway,
    start_gateway_kernel,
)
from tests.lsp.helpers import (
    KERNEL_STATUS,
    SERVER,
    Recorder,
    crane_diagnostics,
    has_code,
    initialize_params,
    open_notebook,
)
from tests.lsp.test_remote_sessions import _edit, run_vscode_probe, vscode_kernel_id

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
MISSING = "pandas-missing-column"
CELL = "total = df['prices'].sum()"
_HOME = Path(tempfile.mkdtemp(prefix="crane-lsp-gateway-"))
(_HOME / "runtime").mkdir()
ENV = {
    **os.environ,
    "CRANE_TEST_GATEWAY_TOKEN": TOKEN,
    "CRANE_LLM_CONFIG": str(_HOME / "config.json"),
    "JUPYTER_RUNTIME_DIR": str(_HOME / "runtime"),
}
ENV.pop("CRANE_JUPYTER_TOKEN", None)
CONFIG = ClientServerConfig(server_command=SERVER.server_command, server_env=ENV)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from start_gateway(tmp_path_factory.mktemp("lsp-gateway"))


def _run(coroutine: Any) -> Any:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout=60)


def _kernel(gateway: Server) -> str:
    kernel_id = start_gateway_kernel(gateway)
    _run(_execute(gateway.url, kernel_id, SETUP))
    return kernel_id


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: LanguageClient, gateway: Server) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    # The gateway is a configured server too: it has no sessions API, which is no error.
    settings = {
        "debounceMs": 20,
        "servers": [{"url": gateway.url, "tokenEnv": "CRANE_TEST_GATEWAY_TOKEN"}],
    }
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), settings)
    )
    yield
    await lsp_client.shutdown_session()


async def _attach(client: LanguageClient, uri: str, gateway: Server, kernel_id: str) -> Any:
    arguments = {
        "uri": uri,
        "server_url": gateway.url,
        "kernel_id": kernel_id,
        "token_env": "CRANE_TEST_GATEWAY_TOKEN",
    }
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="crane.attachKernel", arguments=[arguments])
        ),
        30,
    )


def _warnings(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages]


async def test_attach_publish_restart_and_shutdown_through_the_gateway(
    client: LanguageClient, gateway: Server
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    kernel_id = _kernel(gateway)
    uri = "file:///work/gateway.ipynb"
    cells = open_notebook(client, uri, [("code", CELL)])
    status = await _attach(client, uri, gateway, kernel_id)
    assert status["reason"] == "command" and kernel_id in status["detail"]
    found = await recorder.wait_for(lambda: has_code(client, cells[0], MISSING))
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert not _warnings(client), _warnings(client)  # no sessions API: nothing to warn about

    assert gateway.api("POST", f"api/kernels/{kernel_id}/restart").status_code == 200
    await recorder.wait_for(lambda: not has_code(client, cells[0], MISSING))
    await asyncio.to_thread(_run, _execute(gateway.url, kernel_id, SETUP))
    await recorder.wait_for(lambda: has_code(client, cells[0], MISSING))

    started = time.monotonic()
    assert gateway.api("DELETE", f"api/kernels/{kernel_id}").status_code == 204
    await recorder.wait_for(lambda: not crane_diagnostics(client, cells[0]))
    lost = await recorder.wait_for(lambda: [w for w in _warnings(client) if kernel_id in w])
    assert "\n" not in lost[0] and time.monotonic() - started < 20
    await recorder.wait_for(
        lambda: [s for s in recorder.of(KERNEL_STATUS) if s["uri"] == uri and s["state"] == "dead"]
    )
    assert TOKEN not in repr(recorder.messages) + repr(client.messages)


async def test_the_vscode_hand_off_finds_a_gateway_kernel_by_its_id(
    client: LanguageClient, gateway: Server, tmp_path: Path
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    kernel_id = _kernel(gateway)
    printed = await asyncio.to_thread(
        _run, run_vscode_probe(gateway.url, kernel_id, TOKEN, tmp_path / "probe.txt")
    )
    assert f"CRANE_KERNEL_ID={kernel_id}" in printed  # the gateway's KERNEL_ID
    assert vscode_kernel_id(printed) == kernel_id
    uri = "file:///work/gateway-handoff.ipynb"
    cells = open_notebook(client, uri, [("code", CELL)])
    arguments = {"uri": uri, "connection_file": "/elsewhere/conn.json", "kernel_id": kernel_id}
    status = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="crane.attachKernel", arguments=[arguments])
        ),
        30,
    )
    assert status["kernel_id"] == kernel_id
    await recorder.wait_for(lambda: has_code(client, cells[0], MISSING))


async def test_the_gateway_stopped_mid_check_is_a_clear_error_not_a_hang(
    client: LanguageClient, gateway: Server
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    kernel_id = _kernel(gateway)
    uri = "file:///work/gateway-stop.ipynb"
    cells = open_notebook(client, uri, [("code", CELL)])
    await _attach(client, uri, gateway, kernel_id)
    await recorder.wait_for(lambda: has_code(client, cells[0], MISSING))
    started = time.monotonic()
    _edit(client, uri, cells[0], 2, CELL + "  # edited")
    gateway.process.terminate()
    await asyncio.to_thread(gateway.process.wait, 15)
    await recorder.wait_for(lambda: not crane_diagnostics(client, cells[0]), timeout=30)
    lost = await recorder.wait_for(
        lambda: [w for w in _warnings(client) if kernel_id in w], timeout=30
    )
    assert "\n" not in lost[0] and time.monotonic() - started < 30
    started = time.monotonic()
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=cells[0]),
                position=types.Position(line=0, character=1),
            )
        ),
        10,
    )
    assert hover is None and time.monotonic() - started < 5
