"""The language server warns before you get there: a pending cell above that drops a column
makes the cell below an Error (with the cause cell as related information), and the warning
leaves when the cell above is fixed. Nothing is run."""

from __future__ import annotations

import asyncio
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
    assert "by cell 1, which has not run yet (`ahead = ahead.drop" in found[0].message
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


async def _hover_text(client: LanguageClient, cell_uri: str) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=cell_uri),
            position=types.Position(line=0, character=1),
        )
    )
    if hover is None or not isinstance(hover.contents, types.MarkupContent):
        return ""
    return hover.contents.value


async def test_a_kernel_state_not_built_by_the_notebook_judges_every_cell_live(
    client: LanguageClient, frame_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    # The kernel holds `ahead` with columns a, b (run outside this notebook); this notebook's
    # first cell rebinds it. A walk of cell 1 would make cell 2 a KeyError while the hover
    # shows the live frame with column 'a': one state for every cell instead.
    uri = "file:///work/ahead-foreign.ipynb"
    cells = open_notebook(
        client,
        uri,
        [("code", "ahead = pd.DataFrame({'z': [1]})"), ("code", "ahead['a'].sum()")],
    )
    await attach(client, uri, frame_kernel)

    async def noted() -> bool:
        return "judged against the kernel's live state" in await _hover_text(client, cells[1])

    for _ in range(300):  # the note is set where the walk ahead would have started
        if await noted():
            break
        await asyncio.sleep(0.1)
    assert await noted()
    errors = [
        d
        for d in client.diagnostics.get(cells[1], [])
        if d.severity == types.DiagnosticSeverity.Error
    ]
    assert errors == [], errors
    # control: the same walk over a new name (a state built on, not rebuilt) is an Error
    uri = "file:///work/ahead-built-on.ipynb"
    cells = open_notebook(
        client,
        uri,
        [("code", "narrow = ahead.drop(columns=['a'])"), ("code", "narrow['a'].sum()")],
    )
    await attach(client, uri, frame_kernel)
    found = await recorder.wait_for(lambda: has_code(client, cells[1], MISSING))
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert "judged against the kernel's live state" not in await _hover_text(client, cells[1])
