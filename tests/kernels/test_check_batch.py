"""Several cells checked in one probe request: the same verdicts as one request per cell, fewer
round trips, and a batch the kernel cuts short at its time budget is finished by the daemon."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from crane_server.analysis.engine import CellPlace, CheckOptions, probe_cell, probe_cells
from crane_server.kernels.session import KernelSession
from crane_server.probe import entry
from crane_server.protocol import CheckResult
from tests.conftest import RunningKernel
from tests.kernels.test_session import observe

pytestmark = pytest.mark.kernel

SETUP = 'import pandas as pd\ndf = pd.DataFrame({"price": [1.0, 2.0], "qty": [3, 4]})'
CELLS = [
    'df["prices"].sum()',  # a missing column, with a close name
    'df["price"] * df["qty"]',  # fine
    "undefined_name + 1",  # NameError
    'df.groupby("qty")["price"].mean()',  # fine
    'df.drop(columns="quantity")',  # a missing column
    "x = " + "1" * 200_001,  # too long to check: a note, never sent
]


@pytest.fixture
async def session(kernel: RunningKernel) -> AsyncIterator[KernelSession]:
    kernel.execute(SETUP)
    attached = await KernelSession.attach(kernel.connection_file, timeout=10)
    try:
        yield attached
    finally:
        await attached.close()


def _codes(result: CheckResult) -> list[tuple[str, int, str]]:
    return [(f.code, f.line, f.severity) for f in result.findings]


async def test_a_batch_gives_the_verdicts_of_single_requests(
    session: KernelSession, kernel: RunningKernel
) -> None:
    options = CheckOptions(timeout=10)
    places = [CellPlace(notebook_cells=CELLS, target_index=i) for i in range(len(CELLS))]
    before = observe(kernel)
    single = [
        (await probe_cell(session, source, place=place, options=options))[0]
        for source, place in zip(CELLS, places)
    ]
    requests = session._activity.own_started
    batched = await probe_cells(session, list(zip(CELLS, places)), options=options)
    assert session._activity.own_started - requests == 1  # five cells, one request
    assert all(answer is not None for answer in batched)
    assert [_codes(a[0]) for a in batched if a] == [_codes(r) for r in single]
    assert any(_codes(r) for r in single)  # control: the cells do have findings to compare
    assert observe(kernel) == before  # no name, history or execution count moved


async def test_a_batch_cut_short_by_the_kernel_is_finished(
    session: KernelSession, kernel: RunningKernel
) -> None:
    await session.run_probe("ping", {}, timeout=10)  # the probe is installed in the kernel
    # The test's own run: the kernel's copy of the probe now answers one cell per request.
    kernel.execute("import sys; sys.modules['_crane_probe.entry'].BATCH_BUDGET_S = 0.0")
    cells = [(source, CellPlace()) for source in CELLS[:5]]
    requests = session._activity.own_started
    answers = await probe_cells(session, cells, options=CheckOptions(timeout=10))
    assert session._activity.own_started - requests == 5
    assert len(answers) == 5 and all(a is not None for a in answers)
    undefined = answers[2]
    assert undefined is not None and _codes(undefined[0])[0][0] == "python-undefined-name"


def test_the_kernel_side_stops_a_batch_at_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = json.dumps({"sources": ["1 + 1", "2 + 2", "3 + 3"], "handoff": False})
    whole = entry.dispatch("check_many", payload).value
    assert len(whole["results"]) == 3
    assert all(one["findings"] == [] for one in whole["results"])
    monkeypatch.setattr(entry, "BATCH_BUDGET_S", 0.0)
    cut = entry.dispatch("check_many", payload).value
    assert len(cut["results"]) == 1  # the daemon asks again for the other two


def test_a_malformed_batch_is_an_error_not_a_traceback() -> None:
    reply = entry.dispatch("check_many", json.dumps({"cells": []})).value
    assert "error" in reply and "KeyError" in reply["error"]
