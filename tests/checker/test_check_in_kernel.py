"""The checker on IPython syntax in a real kernel: magics, shell escapes, cell magics."""

from __future__ import annotations

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import fingerprint, run_probe

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


def test_a_jupyter_progress_bar_first_built_in_the_cell(kernel: RunningKernel) -> None:
    """`from tqdm import tqdm_notebook`: tqdm.notebook is imported only when the first bar is
    built, so whether it can be is read from the environment (is ipywidgets installed?) without
    importing anything; the real run then confirms the prediction."""
    setup = (
        "from tqdm import tqdm_notebook\n"
        "def fit_orders(orders):\n"
        "    scores = []\n"
        "    for order in tqdm_notebook(orders):\n"
        "        scores.append(order)\n"
        "    return scores\n"
    )
    assert kernel.execute(setup)["status"] == "ok"
    cell = "scores = fit_orders([(1, 0), (2, 1)])"
    before = fingerprint(kernel)["modules"]
    result, _ = run_probe(kernel, "check", {"source": cell})
    assert fingerprint(kernel)["modules"] == before  # the check imported nothing
    assert "tqdm.notebook" not in before
    reply = kernel.execute(cell)
    if reply["status"] == "ok":
        assert result["findings"] == []  # ipywidgets is installed here: the bar is built
    else:
        assert reply["ename"] == "ImportError"
        assert [(f["code"], f["exception"], f["line"]) for f in result["findings"]] == [
            ("tqdm-notebook-without-ipywidgets", "ImportError", 1)
        ]
