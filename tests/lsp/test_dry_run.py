"""The dry run through the real language server: it starts only after a cell of the notebook
ran in its kernel (afterFirstRun), and then a crash only a real run sees is published."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

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


def _errors(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    return [
        d for d in client.diagnostics.get(uri, []) if d.severity == types.DiagnosticSeverity.Error
    ]


async def test_pending_cells_run_in_order_in_one_twin(
    client: LanguageClient, json_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    uri = "file:///work/dry-in-order.ipynb"
    sources = [
        SETUP,
        "extra = json.loads('[1, 2]')",  # pending: defines what the next cells read
        "total = sum(extra) + len(raw)",  # alone (without the cell above) a NameError
        "extra['x']",  # raises only after the pending cell that makes `extra` a list
    ]
    cells = open_notebook(client, uri, [("code", source) for source in sources])
    before = fingerprint(json_kernel)
    await attach(client, uri, json_kernel)
    found = await recorder.wait_for(lambda: has_code(client, cells[3], DRY), timeout=60)
    assert "TypeError" in found[0].message and "list indices" in found[0].message
    # the cell run alone would raise NameError; run after its pending cell it is clean
    assert _errors(client, cells[2]) == [] and _errors(client, cells[1]) == []
    assert fingerprint(json_kernel) == before


async def test_a_crash_after_a_pending_cell_names_the_cells_that_ran_before_it(
    client: LanguageClient, json_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    uri = "file:///work/dry-cause.ipynb"
    sources = [SETUP, "parsed = json.loads(raw.replace(\"'\", '\"'))", "parsed['b']"]
    cells = open_notebook(client, uri, [("code", source) for source in sources])
    await attach(client, uri, json_kernel)

    def crash() -> list[types.Diagnostic]:
        return [d for d in _errors(client, cells[2]) if "dry run" in d.message]

    (error,) = await recorder.wait_for(crash, timeout=60)
    assert "KeyError" in error.message and error.range.start.line == 0
    # the cell that ran before it in the twin is named (in the text or as a related location)
    related = [info.location.uri for info in error.related_information or []]
    assert "cell 2" in error.message or cells[1] in related, (error.message, related)


async def _status(client: LanguageClient, uri: str) -> dict[str, Any]:
    """`crane.status`, as the JupyterLab extension's status item asks it."""
    return dict(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="crane.status", arguments=[{"uri": uri}])
        )
    )


async def test_the_status_command_says_whether_the_dry_run_is_on(
    client: LanguageClient, json_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    unrun = "file:///work/status-unrun.ipynb"
    cells = open_notebook(client, unrun, [("code", "config = json.loads(raw)")])
    await attach(client, unrun, json_kernel)
    await recorder.wait_for(lambda: client.diagnostics.get(cells[0]) is not None, timeout=30)
    status = await _status(client, unrun)
    assert status["state"] == "idle" and status["kernel_id"], status
    assert status["dry_run"] == "waiting", status  # afterFirstRun: none of its cells ran
    assert status["live_state_only"] is False, status
    ran = "file:///work/status-ran.ipynb"
    cells = open_notebook(client, ran, [("code", SETUP), ("code", "json.loads(raw)")])
    await attach(client, ran, json_kernel)
    await recorder.wait_for(lambda: has_code(client, cells[1], DRY), timeout=60)
    assert (await _status(client, ran))["dry_run"] == "on"
    # the same answer was pushed as crane/kernelStatus when the mode changed
    pushed = [p for p in recorder.of("crane/kernelStatus") if p.get("uri") == ran]
    assert pushed and pushed[-1]["dry_run"] == "on", pushed[-1:]
    with pytest.raises(Exception, match="is not open"):
        await _status(client, "file:///work/never-opened.ipynb")


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
    assert (await _status(client, uri))["dry_run"] == "off"
