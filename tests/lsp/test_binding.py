"""Binding you can trust: two real kernels whose histories share their imports, the camelCase
connectionFile setting, the status that says which kernel and why, settings warned once."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import RunningKernel
from tests.lsp.helpers import (
    KERNEL_STATUS,
    SERVER,
    Recorder,
    initialize_params,
    open_notebook,
)

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
IMPORTS = "import pandas as pd\nimport numpy as np\n# load\n%matplotlib inline"


@pytest.fixture(scope="module", autouse=True)  # autouse: up before the server starts
def two_kernels(runtime_dir: Path) -> Iterator[tuple[RunningKernel, RunningKernel]]:
    first, second = RunningKernel(runtime_dir), RunningKernel(runtime_dir)
    try:
        for running, own in (
            (first, "orders = pd.DataFrame({'qty': [1, 2]})\nspend = orders.qty.sum() * 3"),
            (second, "weather = np.linspace(0, 1, 5)\npeak = float(weather.max())"),
        ):
            assert running.execute(IMPORTS)["status"] == "ok"
            assert running.execute(own)["status"] == "ok"
            assert running.execute("df = pd.DataFrame({'v': [1]})")["status"] == "ok"
            assert running.execute("df.head()")["status"] == "ok"  # common to both
        yield first, second
    finally:
        first.shutdown()
        second.shutdown()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(
    lsp_client: LanguageClient, two_kernels: tuple[RunningKernel, RunningKernel]
) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    options = {"debounceMs": 20, "checkTimeoutS": 0, "colour": "blue"}
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), options)
    )
    yield
    await lsp_client.shutdown_session()


def recorder(client: LanguageClient) -> Recorder:
    return client.recorder  # type: ignore[attr-defined,no-any-return]


async def status_of(client: LanguageClient, uri: str) -> dict[str, Any]:
    found = await recorder(client).wait_for(
        lambda: [s for s in recorder(client).of(KERNEL_STATUS) if s["uri"] == uri]
    )
    return found[-1]  # type: ignore[no-any-return]


async def test_shared_imports_do_not_bind_by_history(client: LanguageClient) -> None:
    uri = "file:///work/new_analysis.ipynb"
    open_notebook(client, uri, [("code", IMPORTS), ("code", "df.head()"), ("code", "x = 41 + 1")])
    status = await status_of(client, uri)
    assert status["reason"] == "none"
    assert status["connection_file"] is None
    assert "Attach kernel" in status["detail"]


async def test_a_clear_history_winner_binds_and_says_so(
    client: LanguageClient, two_kernels: tuple[RunningKernel, RunningKernel]
) -> None:
    uri = "file:///work/orders.ipynb"
    own = "orders = pd.DataFrame({'qty': [1, 2]})\nspend = orders.qty.sum() * 3"
    open_notebook(client, uri, [("code", IMPORTS), ("code", own), ("code", "print(spend)")])
    status = await status_of(client, uri)
    assert status["reason"] == "history"
    assert status["connection_file"] == str(two_kernels[0].connection_file)
    assert "history match (2 of 2 lines" in status["detail"]
    assert two_kernels[0].kernel_id in status["detail"]


async def test_camel_case_connection_file_binds(
    client: LanguageClient, two_kernels: tuple[RunningKernel, RunningKernel]
) -> None:
    target = two_kernels[1]
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"crane": {"connectionFile": str(target.connection_file), "debounceMs": 20}}
        )
    )
    uri = "file:///work/orders.ipynb"  # the history winner above, now overridden by the setting
    await recorder(client).wait_for(
        lambda: [
            s
            for s in recorder(client).of(KERNEL_STATUS)
            if s["uri"] == uri and s["connection_file"] == str(target.connection_file)
        ]
    )
    status = await status_of(client, uri)
    assert status["reason"] == "hint"
    assert status["detail"] == f"kernel {target.kernel_id}: the connectionFile setting"


async def test_bad_settings_are_reported_once(client: LanguageClient) -> None:
    warnings = [m for m in client.messages if m.type == types.MessageType.Warning]
    assert sorted(m.message for m in warnings if "setting" in m.message) == [
        "crane: setting checkTimeoutS = 0 ignored (Expected `float` >= 0.1); default used",
        "crane: unknown setting 'colour' ignored",
    ]
    before = len(client.messages)
    for _ in range(2):
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"crane": {"checkTimeoutS": 0, "colour": 1}}
            )
        )
    # a request after the notifications: the server has handled them when it answers
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="crane.listKernels", arguments=[])
    )
    assert len(client.messages) == before
