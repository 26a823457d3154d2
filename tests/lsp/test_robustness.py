"""The server answers, stays up and publishes nothing stale under hostile or heavy input."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import RunningKernel
from tests.lsp.helpers import (
    KERNEL_STATUS,
    PUBLISH,
    SERVER,
    Recorder,
    attach,
    has_code,
    initialize_params,
    open_notebook,
    replace_text,
    text_item,
)

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
MISSING = "pandas-missing-column"


@pytest.fixture(scope="module")
def frame_kernel(shared_kernel: RunningKernel) -> RunningKernel:
    code = "import pandas as pd\nrobust = pd.DataFrame({'a': [1, 2], 'b': [3, 4]})"
    assert shared_kernel.execute(code)["status"] == "ok"
    return shared_kernel


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, frame_kernel: RunningKernel) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    options = {"debounce_ms": 20, "check_timeout_s": 2.0, "kernel_heartbeat_s": 0.5}
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("neovim@v0.7.0"), options)
    )
    yield
    await lsp_client.shutdown_session()


def recorder(client: LanguageClient) -> Recorder:
    return client.recorder  # type: ignore[attr-defined,no-any-return]


async def answers(client: LanguageClient) -> None:
    """The server still answers a request."""
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri="file:///nowhere.py"),
                position=types.Position(line=0, character=0),
            )
        ),
        10,
    )
    assert hover is None


async def test_garbage_and_out_of_order_messages(client: LanguageClient) -> None:
    process = client._server  # type: ignore[attr-defined]
    assert process is not None and process.stdin is not None
    for body in (
        b"{not json!!}",
        b'{"jsonrpc": "2.0", "method": 42}',
        b"[]",
        b'{"jsonrpc": "2.0", "id": 7}',
    ):
        process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    await process.stdin.drain()
    # out of order: changes and closes for documents never opened
    replace_text(client, "file:///never-opened.py", 5, "", "# %%\nrobust['zz']\n")
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(
                uri="file:///ghost.ipynb", version=3
            ),
            change=types.NotebookDocumentChangeEvent(),
        )
    )
    client.notebook_document_did_close(
        types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri="file:///ghost.ipynb"),
            cell_text_documents=[],
        )
    )
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri="file:///x.py")
        )
    )
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri="file:///ghost.py"),
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=0, character=1)
            ),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert not actions
    with pytest.raises(JsonRpcException):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="crane.check", arguments=[{"no_uri": 1}])
        )
    await answers(client)


async def test_unknown_kernel_is_refused_and_the_document_stays_unbound(
    client: LanguageClient,
) -> None:
    uri = "file:///work/unknown.py"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=text_item(uri, "# %%\nrobust['zz']\n"))
    )
    for argument in (
        {"uri": uri, "kernel_id": "no-such-kernel"},
        {"uri": uri, "connection_file": "/no/such/kernel-x.json"},
    ):
        with pytest.raises(JsonRpcException):
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="crane.attachKernel", arguments=[argument])
            )
    listing = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="crane.listKernels", arguments=[])
    )
    assert isinstance(listing, list)
    await answers(client)


async def test_judged_statically_while_busy_then_fully_once_idle(
    client: LanguageClient, kernel: RunningKernel
) -> None:
    # Another client keeps a kernel new to the server busy without a visible cell (no
    # execute_input, so no "execution finished" event): the first check can only be static.
    # Once the kernel is idle again, the full check must follow without any edit.
    setup = "import pandas as pd\nlate = pd.DataFrame({'a': [1, 2]})"
    assert kernel.execute(setup)["status"] == "ok"
    kernel.client.execute("import time; time.sleep(4)", silent=True, store_history=False)
    await asyncio.sleep(0.3)
    uri = "file:///work/busy-at-open.ipynb"
    cells = open_notebook(client, uri, [("code", "late.iloc[10]")])
    await attach(client, uri, kernel)
    found = await recorder(client).wait_for(
        lambda: [d for d in client.diagnostics.get(cells[0], []) if d.source == "crane"],
        timeout=30,
    )
    assert found[0].code == "pandas-index-out-of-bounds"
    await answers(client)


async def test_kernel_dying_mid_check(client: LanguageClient, kernel: RunningKernel) -> None:
    assert (
        kernel.execute("import pandas as pd\ndoomed = pd.DataFrame({'a': [1]})")["status"] == "ok"
    )
    uri = "file:///work/dying.ipynb"
    cells = open_notebook(client, uri, [("code", "doomed['b']")])
    status = await attach(client, uri, kernel)
    assert status["reason"] == "command"
    await recorder(client).wait_for(lambda: has_code(client, cells[0], MISSING))
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=uri, version=2),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(uri=cells[0], version=2),
                            changes=[
                                types.TextDocumentContentChangeWholeDocument(text="doomed['c']")
                            ],
                        )
                    ]
                )
            ),
        )
    )
    kernel.manager.signal_kernel(signal.SIGKILL)  # while the edit's check is under way
    await recorder(client).wait_for(
        lambda: any(
            s["uri"] == uri and s["state"] == "dead" for s in recorder(client).of(KERNEL_STATUS)
        )
    )
    await recorder(client).wait_for(lambda: not has_code(client, cells[0], MISSING))
    await answers(client)


async def test_ten_thousand_line_cell(client: LanguageClient, frame_kernel: RunningKernel) -> None:
    uri = "file:///work/huge.ipynb"
    text = "\n".join(f"v{i} = {i}" for i in range(10_000)) + "\nrobust['huge']"
    cells = open_notebook(client, uri, [("code", text)])
    await attach(client, uri, frame_kernel)
    found = await recorder(client).wait_for(lambda: has_code(client, cells[0], MISSING), timeout=60)
    assert found[0].range.start.line == 10_000
    await answers(client)


async def test_two_hundred_rapid_edits_publish_nothing_stale(
    client: LanguageClient, frame_kernel: RunningKernel
) -> None:
    uri = "file:///work/rapid.py"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=text_item(uri, "# %%\nx = 1\n"))
    )
    await attach(client, uri, frame_kernel)
    for version in range(2, 202):
        replace_text(
            client, uri, version, "", f"# %%\n{'#' * (version % 7)}\nrobust['col{version}']\n"
        )
    await answers(client)  # every edit has reached the server
    after = len(recorder(client).messages)
    final = await recorder(client).wait_for(
        lambda: [d for d in has_code(client, uri, MISSING) if "col201" in d.message]
    )
    assert final[0].range.start.line == 2
    late = [params for name, params in recorder(client).messages[after:] if name == PUBLISH]
    for params in late:
        for diagnostic in params.diagnostics:
            assert diagnostic.data["version"] == 201, diagnostic.message
    await answers(client)
