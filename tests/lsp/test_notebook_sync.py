"""VS Code-style notebook document sync against the real server and a real kernel."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import RunningKernel
from tests.lsp.helpers import (
    KERNEL_STATUS,
    SERVER,
    Recorder,
    has_code,
    initialize_params,
    open_notebook,
)

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
MISSING = "pandas-missing-column"


@pytest.fixture(scope="module")
def sales_kernel(shared_kernel: RunningKernel) -> RunningKernel:
    reply = shared_kernel.execute(
        "import pandas as pd\n"
        "sales = pd.DataFrame({'price': [1.0, 2.0, 3.0], 'qty': [1, 2, 3]})\n"
        "tmp_df = pd.DataFrame({'k': [1]})"
    )
    assert reply["status"] == "ok"
    assert shared_kernel.execute("col = tmp_df['k']")["status"] == "ok"
    return shared_kernel


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, sales_kernel: RunningKernel) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    options = {"connection_file": str(sales_kernel.connection_file), "debounce_ms": 20}
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), options)
    )
    yield
    await lsp_client.shutdown_session()


def recorder(client: LanguageClient) -> Recorder:
    return client.recorder  # type: ignore[attr-defined,no-any-return]


async def test_missing_column_is_an_error_until_the_kernel_creates_it(
    client: LanguageClient, sales_kernel: RunningKernel
) -> None:
    cells = open_notebook(
        client,
        "file:///work/live.ipynb",
        [
            ("markdown", "# Sales"),
            ("code", "import pandas as pd"),
            ("code", "x = 1\ntotal = sales['revenue'].sum()"),
        ],
    )
    found = await recorder(client).wait_for(lambda: has_code(client, cells[2], MISSING))
    diagnostic = found[0]
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.range.start.line == 1
    line = "total = sales['revenue'].sum()"
    assert "revenue" in line[diagnostic.range.start.character : diagnostic.range.end.character]
    assert "KeyError" in diagnostic.message
    assert not has_code(client, cells[1], MISSING)

    await asyncio.to_thread(sales_kernel.execute, "sales['revenue'] = sales.price * sales.qty")
    await recorder(client).wait_for(lambda: not has_code(client, cells[2], MISSING))


async def test_kernel_status_names_the_bound_kernel(
    client: LanguageClient, sales_kernel: RunningKernel
) -> None:
    open_notebook(client, "file:///work/status.ipynb", [("code", "sales.shape")])
    statuses = await recorder(client).wait_for(
        lambda: [
            s for s in recorder(client).of(KERNEL_STATUS) if s["uri"] == "file:///work/status.ipynb"
        ]
    )
    assert statuses[-1]["connection_file"] == str(sales_kernel.connection_file)
    assert statuses[-1]["state"] in ("idle", "busy")
    assert statuses[-1]["reason"] == "hint"


async def test_deleting_the_cell_clears_its_diagnostic(client: LanguageClient) -> None:
    uri = "file:///work/delete.ipynb"
    cells = open_notebook(client, uri, [("code", "sales['discount']"), ("code", "y = 2")])
    await recorder(client).wait_for(lambda: has_code(client, cells[0], MISSING))
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=uri, version=2),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    structure=types.NotebookDocumentCellChangeStructure(
                        array=types.NotebookCellArrayChange(start=0, delete_count=1, cells=[]),
                        did_close=[types.TextDocumentIdentifier(uri=cells[0])],
                    )
                )
            ),
        )
    )
    await recorder(client).wait_for(
        lambda: cells[0] in client.diagnostics and not client.diagnostics[cells[0]]
    )


async def test_hover_shows_the_dataframe_shape(client: LanguageClient) -> None:
    cells = open_notebook(client, "file:///work/hover.ipynb", [("code", "sales.head()")])
    await recorder(client).wait_for(lambda: cells[0] in client.diagnostics)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=cells[0]),
            position=types.Position(line=0, character=2),
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert "DataFrame" in hover.contents.value
    assert "shape: `(3, " in hover.contents.value
    assert "`price`" in hover.contents.value


async def test_quick_fix_renames_the_column(client: LanguageClient) -> None:
    uri = "file:///work/fix.ipynb"
    text = "cost = sales['prices'] * 2"
    cells = open_notebook(client, uri, [("code", text)])
    found = await recorder(client).wait_for(lambda: has_code(client, cells[0], MISSING))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=cells[0]),
            range=found[0].range,
            context=types.CodeActionContext(diagnostics=found),
        )
    )
    assert actions is not None
    fixes = [a for a in actions if isinstance(a, types.CodeAction) and a.edit is not None]
    assert fixes, actions
    edits = fixes[0].edit.changes[cells[0]]  # type: ignore[index,union-attr]
    assert len(edits) == 1
    edit = edits[0]
    fixed = text[: edit.range.start.character] + edit.new_text + text[edit.range.end.character :]
    assert "price'" in fixed and "prices" not in fixed
    titles = [a.title for a in actions]
    assert "Explain with the LLM" in titles

    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=uri, version=2),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(uri=cells[0], version=2),
                            changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
                        )
                    ]
                )
            ),
        )
    )
    await recorder(client).wait_for(lambda: not has_code(client, cells[0], MISSING))


async def test_a_cell_that_already_ran_gets_only_information(
    client: LanguageClient, sales_kernel: RunningKernel
) -> None:
    await asyncio.to_thread(sales_kernel.execute, "tmp_df = tmp_df.rename(columns={'k': 'j'})")
    cells = open_notebook(client, "file:///work/ran.ipynb", [("code", "col = tmp_df['k']")])
    found = await recorder(client).wait_for(lambda: has_code(client, cells[0], "notebook-rerun"))
    assert found[0].severity == types.DiagnosticSeverity.Information
    assert "re-running it now would raise" in found[0].message


async def test_show_prompt_carries_the_cell_and_the_runtime_state(client: LanguageClient) -> None:
    cells = open_notebook(client, "file:///work/prompt.ipynb", [("code", "sales['qty'].sum()")])
    await recorder(client).wait_for(lambda: cells[0] in client.diagnostics)
    prompt = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="crane.showPrompt", arguments=[{"uri": cells[0]}])
    )
    assert isinstance(prompt, str)
    assert "sales['qty'].sum()" in prompt
    assert "qty" in prompt.split("[Current relevant runtime information]")[1]
    listing = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="crane.listKernels", arguments=[])
    )
    assert any("file:///work/prompt.ipynb" in entry["bound_documents"] for entry in listing)
