"""The language server judges a cell that first imports a library: the kernel's own verdict
is published at once, the helper interpreter's follows, and the kernel never imports it."""

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
NAN = "sklearn-nan-input"
SETUP = (
    "import numpy as np\nimport pandas as pd\n"
    "people = pd.DataFrame({'age': [30.0, np.nan, 41.0, 25.0], 'fare': [7.0, 9.0, 3.0, 5.0]})\n"
    "survived = pd.Series([0, 1, 1, 0])"
)


@pytest.fixture(scope="module")
def plain_kernel(runtime_dir: Path) -> Iterator[RunningKernel]:
    running = RunningKernel(runtime_dir)
    try:
        assert running.execute(SETUP)["status"] == "ok"
        yield running
    finally:
        running.shutdown()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, plain_kernel: RunningKernel) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), {"debounce_ms": 20})
    )
    yield
    await lsp_client.shutdown_session()


async def test_a_cell_that_first_imports_scikit_learn_gets_its_error(
    client: LanguageClient, plain_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    before = fingerprint(plain_kernel)
    uri = "file:///work/first-import.ipynb"
    cells = open_notebook(
        client,
        uri,
        [
            ("code", "people.describe()"),
            (
                "code",
                "from sklearn.linear_model import LogisticRegression\n"
                "LogisticRegression().fit(people, survived)",
            ),
        ],
    )
    await attach(client, uri, plain_kernel)
    found = await recorder.wait_for(lambda: has_code(client, cells[1], NAN), timeout=60)
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert found[0].range.start.line == 1
    assert "ValueError" in found[0].message and "NaN" in found[0].message
    assert not has_code(client, cells[0], NAN)
    # The kernel imported nothing and ran nothing.
    assert fingerprint(plain_kernel) == before
    assert "sklearn" not in fingerprint(plain_kernel)["modules"]


async def test_with_the_helper_switched_off_the_cell_is_judged_without_the_library(
    client: LanguageClient, plain_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"crane": {"helperInterpreter": False, "debounceMs": 20}}
        )
    )
    uri = "file:///work/first-import-off.ipynb"
    cells = open_notebook(
        client,
        uri,
        [
            (
                "code",
                "from sklearn.svm import SVC\nSVC().fit(people, survived)\npeople['gone']",
            ),
        ],
    )
    await attach(client, uri, plain_kernel)
    # The kernel's own walk still finds the missing column below the fit it cannot judge.
    found = await recorder.wait_for(
        lambda: has_code(client, cells[0], "pandas-missing-column"), timeout=60
    )
    assert found[0].range.start.line == 2
    assert not has_code(client, cells[0], NAN)
