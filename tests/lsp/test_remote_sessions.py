"""The language server configured with a real Jupyter Server (`servers` setting, token from the
config file or the environment) binds a notebook by its session's path and follows the kernel
through a restart, a shutdown, a wrong token and the server stopping."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
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

from crane_server.kernels.session import KernelSession
from tests.kernels.test_remote import SETUP, TOKEN, Server, _execute, _start_server
from tests.lsp.helpers import (
    KERNEL_STATUS,
    SERVER,
    Recorder,
    crane_diagnostics,
    has_code,
    initialize_params,
    open_notebook,
)

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
MISSING = "pandas-missing-column"
CELL = "total = df['prices'].sum()"
# The language server's own environment: a config file holding the token (the settings carry
# only the URL), a wrong token in another variable, and no local kernels at all.
_HOME = Path(tempfile.mkdtemp(prefix="crane-lsp-servers-"))
_CONFIG = _HOME / "config.json"
(_HOME / "runtime").mkdir()
ENV = {
    **os.environ,
    "CRANE_LLM_CONFIG": str(_CONFIG),
    "CRANE_TEST_WRONG_TOKEN": "not-the-token",
    "JUPYTER_RUNTIME_DIR": str(_HOME / "runtime"),
}
ENV.pop("CRANE_JUPYTER_TOKEN", None)
SERVER_LOG = _HOME / "server.log"  # at DEBUG, to show that no token is ever logged
CONFIG = ClientServerConfig(
    server_command=[
        *SERVER.server_command[:4],
        "--log-file",
        str(SERVER_LOG),
        "--log-level",
        "DEBUG",
    ],
    server_env=ENV,
)


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    for server in _start_server(tmp_path_factory.mktemp("lsp-sessions")):
        _CONFIG.write_text(json.dumps({"jupyter_servers": [{"url": server.url, "token": TOKEN}]}))
        _CONFIG.chmod(0o600)
        yield server


def _run(coroutine: Any) -> Any:
    """Run a client of its own outside the module's event loop (as another user would)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout=60)


def _kernel_with_session(jupyter: Server, path: str, *, setup: bool = True) -> str:
    kernel_id = jupyter.start_kernel()
    if setup:
        _run(_execute(jupyter.url, kernel_id, SETUP))
    name = path.rsplit("/", 1)[-1]
    body = {"path": path, "type": "notebook", "name": name, "kernel": {"id": kernel_id}}
    response = jupyter.api("POST", "api/sessions", json=body)
    assert response.status_code == 201, response.text
    return kernel_id


def _settings(jupyter: Server, **entry: str) -> dict[str, Any]:
    return {"debounceMs": 20, "servers": [{"url": jupyter.url, **entry}], "serverTimeoutS": 3}


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: LanguageClient, jupyter: Server) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), _settings(jupyter))
    )
    yield
    await lsp_client.shutdown_session()


def _statuses(client: LanguageClient, uri: str) -> list[dict[str, Any]]:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    return [s for s in recorder.of(KERNEL_STATUS) if s["uri"] == uri]


def _warnings(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages]


def _edit(client: LanguageClient, uri: str, cell: str, version: int, text: str) -> None:
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=uri, version=version),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(
                                uri=cell, version=version
                            ),
                            changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                        )
                    ]
                )
            ),
        )
    )


async def test_a_notebook_binds_to_the_kernel_of_its_session_and_gets_its_error(
    client: LanguageClient, jupyter: Server
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    kernel_id = _kernel_with_session(jupyter, "projects/sales/analysis.ipynb")
    uri = "file:///home/ana/projects/sales/analysis.ipynb"  # the server's root is /home/ana
    started = time.monotonic()
    cells = open_notebook(client, uri, [("code", CELL)])
    found = await recorder.wait_for(lambda: has_code(client, cells[0], MISSING))
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert "closest existing column: 'price'" in found[0].message
    assert time.monotonic() - started < 15
    status = _statuses(client, uri)[-1]
    assert status["reason"] == "notebook-path" and status["kernel_id"] == kernel_id
    assert "projects/sales/analysis.ipynb" in status["detail"]
    everything = repr(recorder.messages) + repr(client.messages) + repr(client.log_messages)
    assert TOKEN not in everything

    # The kernel is restarted through the server: crane follows it (same id, new process).
    response = jupyter.api("POST", f"api/kernels/{kernel_id}/restart")
    assert response.status_code == 200
    await recorder.wait_for(lambda: not has_code(client, cells[0], MISSING))
    await asyncio.to_thread(_run, _execute(jupyter.url, kernel_id, SETUP))
    await recorder.wait_for(lambda: has_code(client, cells[0], MISSING))

    # Shut down through the server: the Error goes, one line says why, nothing hangs.
    started = time.monotonic()
    assert jupyter.api("DELETE", f"api/kernels/{kernel_id}").status_code == 204
    await recorder.wait_for(lambda: not crane_diagnostics(client, cells[0]))
    await recorder.wait_for(lambda: _statuses(client, uri)[-1]["kernel_id"] is None)
    assert time.monotonic() - started < 20
    assert [w for w in _warnings(client) if kernel_id in w and "\n" not in w]
    # A new kernel for the notebook (as JupyterLab's "change kernel" makes): the next edit
    # binds it.
    new_kernel = _kernel_with_session(jupyter, "projects/sales/analysis.ipynb")
    _edit(client, uri, cells[0], 2, CELL + "\n")
    await recorder.wait_for(lambda: has_code(client, cells[0], MISSING))
    assert _statuses(client, uri)[-1]["kernel_id"] == new_kernel
    client.notebook_document_did_close(
        types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=uri),
            cell_text_documents=[types.TextDocumentIdentifier(uri=cells[0])],
        )
    )


async def test_no_clear_winner_binds_nothing(client: LanguageClient, jupyter: Server) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    _kernel_with_session(jupyter, "twin.ipynb", setup=False)
    _kernel_with_session(jupyter, "b/twin.ipynb", setup=False)  # both end /a/b/twin.ipynb
    _kernel_with_session(jupyter, "c/other.ipynb", setup=False)
    uri = "file:///a/b/twin.ipynb"
    open_notebook(client, uri, [("code", CELL)])
    status = await recorder.wait_for(
        lambda: [s for s in _statuses(client, uri) if "server sessions match" in s["detail"]]
    )
    assert status[-1]["kernel_id"] is None and "2 server sessions" in status[-1]["detail"]
    uri = "file:///a/b/nothing.ipynb"
    open_notebook(client, uri, [("code", CELL)])
    status = await recorder.wait_for(
        lambda: [s for s in _statuses(client, uri) if s["detail"] != "not bound yet"]
    )
    assert "no server session for this notebook" in status[-1]["detail"]


async def test_a_wrong_token_is_one_clear_line_and_local_work_goes_on(
    client: LanguageClient, jupyter: Server
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings=_settings(jupyter, tokenEnv="CRANE_TEST_WRONG_TOKEN")
        )
    )
    started = time.monotonic()
    uri = "file:///home/ana/wrong/token.ipynb"
    _kernel_with_session(jupyter, "wrong/token.ipynb", setup=False)
    open_notebook(client, uri, [("code", "x = 1")])
    refused = await recorder.wait_for(
        lambda: [w for w in _warnings(client) if "refused the token (HTTP 403)" in w]
    )
    assert time.monotonic() - started < 10
    assert "\n" not in refused[0] and "not-the-token" not in repr(client.messages)
    status = await recorder.wait_for(
        lambda: [s for s in _statuses(client, uri) if "refused" in s["detail"]]
    )
    assert status[-1]["kernel_id"] is None
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=_settings(jupyter))
    )


# -- the VS Code hand-off of a remote kernel ------------------------------------------------

VSCODE = Path(__file__).resolve().parents[2] / "clients" / "vscode"


def vscode_probe_code() -> str:
    """CONNECTION_FILE_CODE as the extension sends it (read from its compiled module)."""
    compiled = VSCODE / "out-test" / "src" / "handoff.js"
    assert compiled.is_file(), "build the extension's tests: cd clients/vscode && npm test"
    script = f"process.stdout.write(require({str(compiled)!r}).CONNECTION_FILE_CODE)"
    return subprocess.run(
        ["node", "-e", script], check=True, capture_output=True, text=True, timeout=30
    ).stdout


def vscode_kernel_id(stdout: str) -> str | None:
    """The extension's own parseKernelId on what the kernel printed."""
    compiled = VSCODE / "out-test" / "src" / "handoff.js"
    outputs = json.dumps([{"mime": "application/vnd.code.notebook.stdout", "text": stdout}])
    script = (
        f"const id = require({str(compiled)!r}).parseKernelId({outputs});"
        "process.stdout.write(JSON.stringify(id ?? null))"
    )
    result = subprocess.run(
        ["node", "-e", script], check=True, capture_output=True, text=True, timeout=30
    )
    found: str | None = json.loads(result.stdout)
    return found


async def run_vscode_probe(url: str, kernel_id: str, token: str, scratch: Path) -> str:
    """Run the extension's probe in a kernel of a real server; what it printed. (Its stdout is
    caught into a file: this test's kernels run on this machine.)"""
    catch = (
        "import contextlib as _c, io as _io\n_buf = _io.StringIO()\n"
        f"with _c.redirect_stdout(_buf):\n    exec({vscode_probe_code()!r})\n"
        f"open({str(scratch)!r}, 'w').write(_buf.getvalue())\n"
    )
    session = await KernelSession.attach_remote(url, kernel_id, token=token, timeout=30)
    try:
        assert (await session.execute(catch, timeout=30)).status == "ok"
    finally:
        await session.close()
    return scratch.read_text()


async def test_the_vscode_hand_off_of_a_remote_kernel_finds_it_on_the_configured_server(
    client: LanguageClient, jupyter: Server, tmp_path: Path
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    # VS Code's Jupyter extension names its sessions `name-jvsc-<uuid>.ipynb`: no path match.
    kernel_id = _kernel_with_session(jupyter, "analysis-jvsc-1f2e3d4c.ipynb")
    printed = await asyncio.to_thread(
        _run, run_vscode_probe(jupyter.url, kernel_id, TOKEN, tmp_path / "probe.txt")
    )
    assert vscode_kernel_id(printed) == kernel_id
    # On the editor's machine the printed file is a path on another host.
    name = printed.split("CRANE_CONNECTION_FILE=")[1].split()[0].rsplit("/", 1)[-1]
    uri = "file:///home/me/analysis.ipynb"
    cells = open_notebook(client, uri, [("code", CELL)])
    status = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="crane.attachKernel",
                arguments=[
                    {
                        "uri": uri,
                        "connection_file": f"/nonexistent/remote-host/runtime/{name}",
                        "kernel_id": kernel_id,
                    }
                ],
            )
        ),
        30,
    )
    assert status["kernel_id"] == kernel_id and status["reason"] == "command"
    await recorder.wait_for(lambda: has_code(client, cells[0], MISSING))
    with pytest.raises(Exception, match="none of the configured servers has it"):
        await asyncio.wait_for(
            client.workspace_execute_command_async(
                types.ExecuteCommandParams(
                    command="crane.attachKernel",
                    arguments=[{"uri": uri, "kernel_id": "0000-not-a-kernel"}],
                )
            ),
            30,
        )


async def test_the_server_stopped_while_bound_is_a_clear_error_not_a_hang(
    client: LanguageClient, jupyter: Server
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    kernel_id = _kernel_with_session(jupyter, "stop/me.ipynb")
    uri = "file:///srv/stop/me.ipynb"
    cells = open_notebook(client, uri, [("code", CELL)])
    await recorder.wait_for(lambda: has_code(client, cells[0], MISSING))
    started = time.monotonic()
    _edit(client, uri, cells[0], 2, CELL + "  # edited")
    jupyter.process.terminate()  # stopped while that check runs: kernels and sockets go
    await asyncio.to_thread(jupyter.process.wait, 15)
    await recorder.wait_for(lambda: not crane_diagnostics(client, cells[0]), timeout=30)
    lost = await recorder.wait_for(
        lambda: [w for w in _warnings(client) if kernel_id in w], timeout=30
    )
    assert time.monotonic() - started < 30
    assert "\n" not in lost[0]
    # The language server still answers at once.
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
    log = SERVER_LOG.read_text()
    assert "Authorization" not in log and TOKEN not in log and "not-the-token" not in log
