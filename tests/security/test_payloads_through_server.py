"""A sample of the payloads, checked the ways users check: a notebook opened over LSP and bound
to the armed kernel, and the target cell of `crane-server check NOTEBOOK --connection-file`.

Each LSP cell ends with a line the kernel tier certainly reports (`canary['nope']`, a missing
column): its diagnostic proves the payload above it was walked by the probe. Afterwards nothing
may have moved (see harness.Armed).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import RunningKernel
from tests.lsp.helpers import SERVER, Recorder, has_code, initialize_params, open_notebook
from tests.security.harness import Armed
from tests.security.payloads import all_payloads

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

LSP_SAMPLE = [
    "sorted-key-builtin-exec",
    "max-key-lambda-create",
    "series-map-builtin-delete",
    "frame-rename-columns-builtin-system",
    "np-vectorize-builtin-exec",
    "np-frompyfunc-lambda-spawn",
    "functools-partial-builtin-network",
    "methodcaller-kernel-function-import",
    "alias-builtin-eval",
    "cell-function-lambda-create",
    "kernel-function-relay-builtin-delete",
    "fstring-builtin-exec",
    "pickle-loads-system",
    "read-pickle-bytesio-exec",
    "getattr-builtins",
    "vars-builtins",
    "trap-sly-call",
    "trap-trap-format-attr",
    "trap-list-item-plain-sorted",
    "class-len-create",
    "kernel-function-system",
    "input",
    "socket-create-connection",
    "dunder-import",
    "sorted-time-sleep",
]
CLI_SAMPLE = [
    "sorted-key-builtin-exec",
    "series-apply-lambda-delete",
    "np-piecewise-lambda-network",
    "pickle-loads-kernel-bytes",
    "trap-sly-len",
    "kernel-function-relay-kernel-function-create",
]
CANARY = "canary['nope']"


@pytest.fixture(scope="module", autouse=True)  # autouse: up before the server starts
def armed(runtime_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Armed]:
    sandbox = tmp_path_factory.mktemp("security-server")
    kernel = RunningKernel(runtime_dir, cwd=sandbox)
    armed = None
    try:
        armed = Armed(kernel, sandbox, extra="canary = pd.DataFrame({'x': [1]})")
        yield armed
    finally:
        if armed is not None:
            armed.close()
        kernel.shutdown()


@pytest.fixture(scope="module")
def cells(armed: Armed) -> dict[str, str]:
    return dict(all_payloads(str(armed.sandbox)))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, armed: Armed) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    options = {"connectionFile": str(armed.kernel.connection_file), "debounceMs": 20}
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), options)
    )
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_a_notebook_of_payloads_opened_over_lsp_has_no_effect(
    client: LanguageClient, armed: Armed, cells: dict[str, str]
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    sources = [("code", cells[payload_id] + "\n" + CANARY) for payload_id in LSP_SAMPLE]
    uris = open_notebook(client, "file:///work/security.ipynb", sources)
    for payload_id, uri in zip(LSP_SAMPLE, uris):
        try:
            await recorder.wait_for(lambda u=uri: has_code(client, u, "pandas-missing-column"))
        except TimeoutError:
            pytest.fail(f"{payload_id}: the kernel tier never reported the canary below it")
    assert armed.effects() == []


@pytest.mark.parametrize("payload_id", CLI_SAMPLE)
def test_the_check_command_on_a_payload_cell_has_no_effect(
    armed: Armed, cells: dict[str, str], payload_id: str, tmp_path: Path
) -> None:
    notebook = tmp_path / "payload.ipynb"
    sources = ["x = 1", cells[payload_id]]
    notebook.write_text(
        json.dumps(
            {
                "cells": [
                    {
                        "cell_type": "code",
                        "execution_count": None,
                        "metadata": {},
                        "outputs": [],
                        "source": source,
                    }
                    for source in sources
                ],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        ),
        encoding="utf-8",
    )
    forks_before = armed.twin_forks()
    command = [sys.executable, "-m", "crane_server", "check", str(notebook)]
    command += ["--connection-file", str(armed.kernel.connection_file), "--cell", "2", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    result = json.loads(done.stdout)
    assert result["cell"] == 2 and not result.get("error"), result
    assert result.get("engine") == "rules", result  # the kernel tier judged it, not static only
    assert armed.effects() == [], payload_id
    assert armed.twin_forks() == forks_before + 1, "the payload never ran in a sealed twin"
