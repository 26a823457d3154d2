"""The dry run through the real language server: it starts only after a cell of the notebook
ran in its kernel (afterFirstRun), and then a crash only a real run sees is published."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import RunningKernel
from tests.lsp.helpers import SERVER, Recorder, attach, has_code, initialize_params, open_notebook
from tests.probe.kernel_probe import fingerprint

pytestmark = [pytest.mark.kernel, pytest.mark.asyncio(loop_scope="module")]
SETUP = "import json\nraw = \"{'a': 1}\""
DRY = "dry-run-exception"


@pytest.fixture(scope="module")
def json_kernel(runtime_dir: Path) -> Iterator[RunningKernel]:
    running = RunningKernel(runtime_dir)
    try:
        assert running.execute(SETUP)["status"] == "ok"
        yield running
    finally:
        running.shutdown()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, json_kernel: RunningKernel) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), {"debounce_ms": 20})
    )
    yield
    await lsp_client.shutdown_session()


def _read(kernel: RunningKernel) -> int:
    msg_id = kernel.client.execute(
        "",
        silent=True,
        store_history=False,
        user_expressions={
            "n": "__import__('sys').modules['_crane_probe.twin.control'].started_count[0]"
        },
    )
    while True:
        reply = kernel.client.get_shell_msg(timeout=10)
        if reply["parent_header"]["msg_id"] == msg_id:
            return int(reply["content"]["user_expressions"]["n"]["data"]["text/plain"])


async def test_opening_a_notebook_starts_no_twin_then_a_run_does(
    client: LanguageClient, json_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    uri = "file:///work/dry-unrun.ipynb"
    cells = open_notebook(client, uri, [("code", "config = json.loads(raw)\nconfig['a']")])
    await attach(client, uri, json_kernel)
    await recorder.wait_for(lambda: client.diagnostics.get(cells[0]) is not None, timeout=30)
    assert not has_code(client, cells[0], DRY)
    before = fingerprint(json_kernel)
    assert _read(json_kernel) == 0  # a check ran (the probe is installed), no twin did
    # the same notebook with the setup cell in it: that cell ran in this kernel
    uri = "file:///work/dry-run.ipynb"
    cells = open_notebook(
        client, uri, [("code", SETUP), ("code", "config = json.loads(raw)\nconfig['a']")]
    )
    await attach(client, uri, json_kernel)
    found = await recorder.wait_for(lambda: has_code(client, cells[1], DRY), timeout=60)
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert found[0].range.start.line == 0
    assert "JSONDecodeError" in found[0].message and "dry run" in found[0].message
    assert _read(json_kernel) >= 1
    assert fingerprint(json_kernel) == before  # the twin changed nothing in the kernel


async def test_dry_run_off_keeps_the_checker_alone(
    client: LanguageClient, json_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"crane": {"dryRun": "off", "debounceMs": 20}})
    )
    started = _read(json_kernel)
    uri = "file:///work/dry-off.ipynb"
    cells = open_notebook(
        client, uri, [("code", SETUP), ("code", "other = json.loads(raw)\nother['a']")]
    )
    await attach(client, uri, json_kernel)
    await recorder.wait_for(lambda: client.diagnostics.get(cells[1]) is not None, timeout=30)
    assert not has_code(client, cells[1], DRY)
    assert _read(json_kernel) == started
