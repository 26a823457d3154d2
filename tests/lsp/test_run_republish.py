"""After a run, a change that moves nothing but the version (jupyterlab-lsp sends one when
the prompt's execution count changes) neither drops the run's republish as stale nor waits
for the typing debounce."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import RunningKernel
from tests.lsp.helpers import SERVER, Recorder, attach, has_code, initialize_params, open_notebook
from tests.lsp.test_lookahead import change_cell

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
MISSING = "pandas-missing-column"
LONG_DEBOUNCE_MS = 60_000  # a republish that waited for it would time the test out


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, shared_kernel: RunningKernel) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), {"debounce_ms": 0})
    )
    yield
    await lsp_client.shutdown_session()


async def test_a_same_text_change_after_a_run_does_not_delay_the_republish(
    client: LanguageClient, shared_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    assert (
        shared_kernel.execute("import pandas as pd\nrepub = pd.DataFrame({'a': [1]})")["status"]
        == "ok"
    )
    uri = "file:///work/republish.ipynb"
    text = "total = repub['b'].sum()"
    cells = open_notebook(client, uri, [("code", text)])
    await attach(client, uri, shared_kernel)
    await recorder.wait_for(lambda: has_code(client, cells[0], MISSING), timeout=30)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"crane": {"debounceMs": LONG_DEBOUNCE_MS}})
    )
    # the user runs a cell that adds the column; the client then bumps the version only
    assert shared_kernel.execute("repub['b'] = 2")["status"] == "ok"
    change_cell(client, uri, cells[0], 2, text)
    await recorder.wait_for(lambda: not has_code(client, cells[0], MISSING), timeout=20)
