"""The checker on IPython syntax in a real kernel: magics, shell escapes, cell magics."""

from __future__ import annotations

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import run_probe

pytestmark = pytest.mark.kernel

SETUP = "import pandas as pd\ndf = pd.DataFrame({'Amount': [1.0, 2.0]})"


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        pytest.param(
            "%time total = df['Amount'].sum()\nprint(total)", [], id="line-magic-binds-name"
        ),
        pytest.param(
            "%matplotlib inline\ndf['amount']",
            [("pandas-missing-column", 2)],
            id="magic-then-crash",
        ),
        pytest.param(
            "%%time\nx = 1\ndf['amount']", [("pandas-missing-column", 3)], id="time-cell-magic"
        ),
        pytest.param("files = !ls\nprint(files)", [], id="shell-capture"),
        pytest.param("%%bash\necho hi", [], id="other-cell-magic-not-judged"),
        pytest.param(
            "print(undefined_name_xyz)", [("python-undefined-name", 1)], id="plain-name-error"
        ),
    ],
)
def test_ipython_syntax(
    shared_kernel: RunningKernel, cell: str, expected: list[tuple[str, int]]
) -> None:
    assert shared_kernel.execute(SETUP)["status"] == "ok"
    result, _ = run_probe(shared_kernel, "check", {"source": cell})
    assert [(f["code"], f["line"]) for f in result["findings"]] == expected
