"""The helper interpreter: a cell that first imports a library is judged, and the kernel
never imports it.

Real kernels that loaded numpy and pandas only; cells that import a scikit-learn module in
the cell that uses it. Each prediction is confirmed by running the cell for real afterwards,
and a near miss (the same cell on clean data) stays silent.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import pytest

from crane_server.analysis.engine import CheckOptions, check_cell
from crane_server.kernels.helper import HelperPool
from crane_server.kernels.session import KernelSession
from tests.conftest import RunningKernel
from tests.probe.kernel_probe import fingerprint

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(180)]

SETUP = (
    "import numpy as np\n"
    "import pandas as pd\n"
    "rng = np.random.default_rng(0)\n"
    "frame = pd.DataFrame({'age': rng.normal(40, 9, 300), 'fare': rng.gamma(2, 9, 300)})\n"
    "frame.loc[::7, 'age'] = np.nan\n"
    "clean = frame.fillna(frame['age'].mean())\n"
    "target = (frame['fare'] > 15).astype(int)\n"
)

NAN_FIT = (
    "from sklearn.linear_model import LogisticRegression\n"
    "model = LogisticRegression()\n"
    "model.fit({frame}[['age', 'fare']], target)\n"
)
BAD_PARAMETER = (
    "from sklearn.ensemble import RandomForestClassifier\n"
    "forest = RandomForestClassifier(n_estimators={n})\n"
    "forest.fit(clean, target)\n"
)
UNKNOWN_KEYWORD = (
    "from sklearn.tree import DecisionTreeClassifier\ntree = DecisionTreeClassifier({keyword}=3)\n"
)
REMOVED_MODULE = "from sklearn.{module} import train_test_split\n"


def _unloaded(kernel: RunningKernel, module: str) -> bool:
    return module not in fingerprint(kernel)["modules"]


@pytest.fixture
def fresh(kernel: RunningKernel) -> RunningKernel:
    assert kernel.execute(SETUP)["status"] == "ok"
    assert _unloaded(kernel, "sklearn")
    return kernel


async def _check(
    kernel: RunningKernel, cell: str, helpers: HelperPool | None
) -> list[tuple[str, str, int]]:
    session = await KernelSession.attach(kernel.connection_file, timeout=10)
    try:
        result = await check_cell(session, cell, helpers=helpers)
    finally:
        await session.close()
    return [(f.code, f.exception, f.line) for f in result.findings if f.severity == "error"]


@pytest.mark.parametrize(
    ("crashing", "near_miss", "expected"),
    [
        pytest.param(
            NAN_FIT.format(frame="frame"),
            NAN_FIT.format(frame="clean"),
            ("sklearn-nan-input", "ValueError", 3),
            id="nan-into-an-estimator-imported-here",
        ),
        pytest.param(
            BAD_PARAMETER.format(n=0),
            BAD_PARAMETER.format(n=5),
            ("sklearn-invalid-parameter", "InvalidParameterError", 3),
            id="parameter-constraint-checked-in-fit",
        ),
        pytest.param(
            UNKNOWN_KEYWORD.format(keyword="max_dept"),
            UNKNOWN_KEYWORD.format(keyword="max_depth"),
            ("python-call-signature", "TypeError", 2),
            id="misspelt-keyword-of-a-class-imported-here",
        ),
        pytest.param(
            REMOVED_MODULE.format(module="cross_validation"),
            REMOVED_MODULE.format(module="model_selection"),
            ("python-module-not-found", "ModuleNotFoundError", 1),
            id="submodule-removed-from-the-library",
        ),
    ],
)
async def test_a_first_import_is_judged_in_the_helper_and_never_in_the_kernel(
    fresh: RunningKernel, crashing: str, near_miss: str, expected: tuple[str, str, int]
) -> None:
    before = fingerprint(fresh)
    async with HelperPool() as helpers:
        found = await _check(fresh, crashing, helpers)
        quiet = await _check(fresh, near_miss, helpers)
    assert found == [expected]
    assert quiet == []
    after = fingerprint(fresh)
    assert after == before  # no module, name, history entry or count moved
    assert _unloaded(fresh, "sklearn")
    # Confirmed by the real run: the crashing cell raises what was predicted.
    reply = fresh.execute(crashing)
    assert reply["status"] == "error"
    assert reply["ename"] == expected[1]
    assert fresh.execute(near_miss)["status"] == "ok"


async def test_without_a_helper_the_first_import_is_not_judged(fresh: RunningKernel) -> None:
    assert await _check(fresh, NAN_FIT.format(frame="frame"), None) == []
    async with HelperPool(enabled=False) as helpers:
        assert await _check(fresh, NAN_FIT.format(frame="frame"), helpers) == []


async def test_a_helper_killed_between_checks_is_started_again(fresh: RunningKernel) -> None:
    cell = BAD_PARAMETER.format(n=0)
    async with HelperPool() as helpers:
        assert len(await _check(fresh, cell, helpers)) == 1
        (helper,) = helpers._helpers.values()
        assert helper.pid is not None and helper.pid != os.getpid()
        os.kill(helper.pid, signal.SIGKILL)
        await asyncio.sleep(0.2)
        assert len(await _check(fresh, cell, helpers)) == 1
        (again,) = helpers._helpers.values()
        assert again.pid != helper.pid


async def test_a_helper_that_cannot_answer_in_time_leaves_the_kernels_verdict(
    fresh: RunningKernel,
) -> None:
    # The kernel itself finds the missing column; the helper is given no time at all.
    cell = "from sklearn.svm import SVC\nfrom_kernel = frame['missing']\nSVC(C=-1).fit(clean, target)\n"
    session = await KernelSession.attach(fresh.connection_file, timeout=10)
    try:
        async with HelperPool() as helpers:
            result = await check_cell(
                session, cell, helpers=helpers, options=CheckOptions(helper_timeout=0.001)
            )
            slow = [(f.code, f.line) for f in result.findings if f.severity == "error"]
            patient = await check_cell(session, cell, helpers=helpers)
    finally:
        await session.close()
    assert slow == [("pandas-missing-column", 2)]
    assert "helper_ms" in result.timings
    # With time, the helper agrees: the missing column comes first in the cell.
    assert [(f.code, f.line) for f in patient.findings if f.severity == "error"] == slow


async def test_a_helper_for_an_interpreter_that_is_not_there_is_refused() -> None:
    async with HelperPool() as helpers:
        assert helpers.usable(sys.executable)
        assert not helpers.usable("/nonexistent/python3")
        assert not helpers.usable("python3")  # only an absolute path the kernel reported


async def test_a_lazy_import_refused_in_the_kernel_is_judged_in_the_helper(
    fresh: RunningKernel,
) -> None:
    """`Series.interpolate(method='cubic')` imports scipy inside pandas. The kernel refuses
    that import during a check (a module loaded then could not be taken back), so the kernel
    alone judges nothing; the helper walks the cell, pandas imports scipy there, and the
    crash scipy raises on too few points is predicted. scipy never enters the kernel."""
    assert _unloaded(fresh, "scipy")
    crashing = "short = pd.Series([1.0, np.nan, 3.0]).interpolate(method='cubic')"
    near_miss = "short = pd.Series([1.0, np.nan, 3.0]).interpolate()"
    before = fingerprint(fresh)
    assert await _check(fresh, crashing, None) == []
    async with HelperPool() as helpers:
        found = await _check(fresh, crashing, helpers)
        quiet = await _check(fresh, near_miss, helpers)
    assert found == [("pandas-value-error", "ValueError", 1)]
    assert quiet == []
    assert fingerprint(fresh) == before
    assert _unloaded(fresh, "scipy")
    reply = fresh.execute(crashing)
    assert (reply["status"], reply["ename"]) == ("error", "ValueError")
