"""The language server warns before you get there: a pending cell above that drops a column
makes the cell below an Error (with the cause cell as related information), and the warning
leaves when the cell above is fixed. Nothing is run."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import RunningKernel
from tests.lsp.helpers import SERVER, Recorder, attach, has_code, initialize_params, open_notebook

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
MISSING = "pandas-missing-column"


@pytest.fixture(scope="module")
def frame_kernel(shared_kernel: RunningKernel) -> RunningKernel:
    code = "import pandas as pd\nahead = pd.DataFrame({'a': [1.0, 2.0], 'b': [3.0, 4.0]})"
    assert shared_kernel.execute(code)["status"] == "ok"
    return shared_kernel


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, frame_kernel: RunningKernel) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), {"debounce_ms": 20})
    )
    yield
    await lsp_client.shutdown_session()


def change_cell(client: LanguageClient, uri: str, cell_uri: str, version: int, text: str) -> None:
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=uri, version=version),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(
                                uri=cell_uri, version=version
                            ),
                            changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                        )
                    ]
                )
            ),
        )
    )


async def test_a_column_dropped_above_is_an_error_below_until_fixed(
    client: LanguageClient, frame_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    uri = "file:///work/ahead.ipynb"
    cells = open_notebook(
        client,
        uri,
        [
            ("code", "ahead = ahead.drop(columns=['b'])"),
            ("markdown", "# later"),
            ("code", "print(ahead.shape)"),
            ("code", "total = ahead['b'].sum()"),
        ],
    )
    await attach(client, uri, frame_kernel)
    # Today's state has column 'b': only running the cells above in order makes this crash.
    found = await recorder.wait_for(lambda: has_code(client, cells[3], MISSING))
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert "KeyError: 'b'" in found[0].message
    related = found[0].related_information
    assert related and related[0].location.uri == cells[0]
    # the cause named as what it is: cell 1 of the notebook, never run
    assert related[0].message.startswith("cell 1 (not run yet) produced the value: ahead = ")
    assert related[0].location.range.end.character == len("ahead = ahead.drop(columns=['b'])")
    assert "already ran" not in found[0].message
    assert not has_code(client, cells[2], MISSING)
    change_cell(client, uri, cells[0], 2, "ahead = ahead.drop(columns=['a'])")
    await recorder.wait_for(lambda: not has_code(client, cells[3], MISSING))
    # Nothing ran: the kernel's frame still has both columns and no new execution.
    reply = frame_kernel.execute("list(ahead.columns)")
    assert reply["status"] == "ok" and reply["execution_count"] == 2


async def test_one_walk_reaches_a_crash_forty_pending_cells_below(
    client: LanguageClient, frame_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    uri = "file:///work/ahead-long.ipynb"
    middle = [("code", f"long_{i} = ahead['a'] * {i}") for i in range(38)]
    cells = open_notebook(
        client,
        uri,
        [("code", "shorter = ahead.drop(columns=['b'])"), *middle, ("code", "shorter['b'].max()")],
    )
    await attach(client, uri, frame_kernel)
    found = await recorder.wait_for(lambda: has_code(client, cells[-1], MISSING))
    assert found[0].severity == types.DiagnosticSeverity.Error
    related = found[0].related_information
    assert related and related[0].location.uri == cells[0]
    assert not any(has_code(client, cell, MISSING) for cell in cells[:-1])
    # nothing ran: none of the pending cells' names exist in the kernel
    reply = frame_kernel.execute("assert 'shorter' not in globals() and 'long_3' not in globals()")
    assert reply["status"] == "ok"
