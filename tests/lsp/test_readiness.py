"""Readiness, not noise: a fresh kernel and a notebook nobody has run yet, through the server.

Cells whose names come from code cells above get at most a Hint ("waiting for cell N");
names bound only below or nowhere stay Errors; run in order, no Error ever stands on a cell
that then runs fine. The evidence (available columns, closest name) is in the message text.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import RunningKernel
from tests.lsp.helpers import (
    PUBLISH,
    SERVER,
    Recorder,
    crane_diagnostics,
    initialize_params,
    open_notebook,
)

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
ERROR = types.DiagnosticSeverity.Error
HINT = types.DiagnosticSeverity.Hint

NOTEBOOK = [
    ("code", "import pandas as pd\nimport numpy as np"),
    ("markdown", "# Data"),
    ("code", "df = pd.DataFrame({'a': [1, 2, 3], 'b': [4, 5, 6]})"),
    ("code", "total = df['a'].sum()"),
    ("code", "arr = np.arange(6).reshape(2, 3)\nprint(total, arr.shape)"),
    ("code", "print(later)"),
    ("code", "later = 1\nprint(nowhere_defined)"),
]
RUNS_FINE = (0, 2, 3, 4)


@pytest.fixture(scope="module")
def fresh_kernel(runtime_dir: object) -> AsyncIterator[RunningKernel]:
    running = RunningKernel(runtime_dir)  # type: ignore[arg-type]
    try:
        yield running  # type: ignore[misc]
    finally:
        running.shutdown()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, fresh_kernel: RunningKernel) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    options = {"connectionFile": str(fresh_kernel.connection_file), "debounceMs": 20}
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), options)
    )
    yield
    await lsp_client.shutdown_session()


def recorder(client: LanguageClient) -> Recorder:
    return client.recorder  # type: ignore[attr-defined,no-any-return]


def errors(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    return [d for d in crane_diagnostics(client, uri) if d.severity == ERROR]


def waiting(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    return [d for d in crane_diagnostics(client, uri) if d.code == "notebook-waiting"]


def errors_ever_published(client: LanguageClient, uri: str) -> list[str]:
    return [
        d.message
        for params in recorder(client).of(PUBLISH)
        if params.uri == uri
        for d in params.diagnostics
        if d.severity == ERROR
    ]


async def test_a_fresh_notebook_waits_instead_of_crying_wolf(
    client: LanguageClient, fresh_kernel: RunningKernel
) -> None:
    cells = open_notebook(client, "file:///work/ready.ipynb", NOTEBOOK)
    # the genuine crashes: bound only below, bound nowhere
    below = await recorder(client).wait_for(lambda: errors(client, cells[5]))
    assert below[0].code == "notebook-name-below"
    assert "cell 7" in below[0].message  # the editor's 1-based numbering, markdown counted
    nowhere = await recorder(client).wait_for(lambda: errors(client, cells[6]))
    assert [d.code for d in nowhere] == ["python-undefined-name"]
    assert "nowhere_defined" in nowhere[0].message
    # the cells that only wait for cells above: Hints naming the cell, no Error
    hints = await recorder(client).wait_for(lambda: waiting(client, cells[3]))
    assert hints[0].severity == HINT
    assert hints[0].message == "waiting for cell 3 (it defines 'df')"
    await recorder(client).wait_for(lambda: waiting(client, cells[2]))
    assert "waiting for cell 1" in waiting(client, cells[2])[0].message
    await recorder(client).wait_for(lambda: waiting(client, cells[4]))
    for index in RUNS_FINE:
        assert errors(client, cells[index]) == [], index

    # run top to bottom; each cell is judged just before it runs
    for index in RUNS_FINE:
        if index:
            await recorder(client).wait_for(lambda i=index: not waiting(client, cells[i]))  # type: ignore[misc]
        assert errors(client, cells[index]) == [], index
        reply = await asyncio.to_thread(fresh_kernel.execute, NOTEBOOK[index][1])
        assert reply["status"] == "ok"
    for index in RUNS_FINE:
        assert errors_ever_published(client, cells[index]) == [], index
    # still crashes after the cells above ran: bound only below, bound nowhere
    assert [d.code for d in errors(client, cells[5])] == ["notebook-name-below"]
    assert [d.code for d in errors(client, cells[6])] == ["python-undefined-name"]


async def test_evidence_is_in_the_message(
    client: LanguageClient, fresh_kernel: RunningKernel
) -> None:
    reply = await asyncio.to_thread(
        fresh_kernel.execute,
        "import pandas as pd\n"
        "wide = pd.DataFrame({f'feature_{i:03d}': [0] for i in range(80)})\n"
        "wide['revenue'] = 1",
    )
    assert reply["status"] == "ok"
    cells = open_notebook(client, "file:///work/evidence.ipynb", [("code", "wide['revenu']")])
    found = await recorder(client).wait_for(lambda: errors(client, cells[0]))
    message = found[0].message
    lines = message.split("\n")
    assert lines[0].startswith("KeyError")
    assert any(line.startswith("available columns (81): ") for line in lines)
    assert "closest existing column: 'revenue'" in message
    assert lines[-1] == "Fix: use 'revenue'"
    evidence = lines[1:-1]
    assert 0 < sum(len(line) for line in evidence) <= 200
