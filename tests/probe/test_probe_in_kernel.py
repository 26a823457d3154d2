"""The probe in a real ipykernel: it leaves no trace, imports nothing, handles 1e6 rows."""

from __future__ import annotations

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import fingerprint, history, run_probe

pytestmark = pytest.mark.kernel

USER_CELLS = (
    "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2, None], 'b': ['x', 'y', 'z']})",
    "df.shape",
    "class Thing:\n    def __repr__(self):\n        raise RuntimeError('repr')\nthing = Thing()",
    "items = [1, 2, 3]\nlen(items)",
)
NAMES = ["df", "thing", "items", "pd", "Thing", "not_defined"]


def test_probe_leaves_no_trace(kernel: RunningKernel) -> None:
    for cell in USER_CELLS:
        assert kernel.execute(cell)["status"] == "ok"
    before = fingerprint(kernel)
    history_before = history(kernel)
    assert {"df", "thing", "items"} <= set(before["names"])  # the fingerprint sees the state
    assert before["count"] == len(USER_CELLS) + 1
    assert "pandas" in before["modules"]
    assert [entry[2] for entry in history_before if entry[2]] == list(USER_CELLS)

    snapshot, iopub = run_probe(kernel, "summarise", {"names": NAMES})
    again, iopub_again = run_probe(kernel, "summarise", {"names": NAMES})  # already installed

    assert snapshot["variables"]["df"]["shape"] == [3, 2]
    assert snapshot["variables"]["thing"]["type"] == "__main__.Thing"
    assert snapshot["missing"] == ["not_defined"]
    assert again["variables"]["items"]["length"] == 3
    assert {message["msg_type"] for message in iopub + iopub_again} == {"status"}
    after = fingerprint(kernel)
    assert after == before  # dir(), _, __, ___, Out, In, execution count, sys.modules
    assert history(kernel) == history_before
    assert "torch" not in after["modules"]
    assert "sklearn" not in after["modules"]
    assert "_crane_probe" not in after["names"]


def test_large_frame_is_summarised_from_a_sample(kernel: RunningKernel) -> None:
    setup = (
        "import numpy as np, pandas as pd\n"
        "n = 1_000_000\n"
        "big = pd.DataFrame({'id': np.arange(n), 'x': np.random.default_rng(0).random(n),\n"
        "                    'label': np.where(np.arange(n) % 2 == 0, 'even', 'odd')})\n"
        "big.loc[n - 1, 'x'] = np.nan"
    )
    assert kernel.execute(setup)["status"] == "ok"
    snapshot, _iopub = run_probe(kernel, "summarise", {"names": ["big"]})
    summary = snapshot["variables"]["big"]
    assert summary["shape"] == [1_000_000, 3]
    assert summary["stats"] == {"sample_rows": 10_000, "sampled": True}
    assert summary["column_stats"]["id"]["max"] == 999_999  # the tail is sampled
    assert summary["column_stats"]["x"]["nan"] == 1
    assert summary["column_stats"]["label"]["unique"] == 2
    assert snapshot["kernel"]["libraries"]["pandas"]
    assert "torch" not in snapshot["kernel"]["libraries"]


def test_a_check_loads_no_module_numpy_loads_lazily(kernel: RunningKernel) -> None:
    """numpy imports `numpy.random` on first touch: saving the global RNG around a check
    must not be that touch in a kernel that imported only numpy."""
    setup = "import numpy as np\na = np.zeros((3, 4))"
    assert kernel.execute(setup)["status"] == "ok"
    before = fingerprint(kernel)
    assert "numpy" in before["modules"] and "numpy.random" not in before["modules"]
    for cell in ("b = a.reshape(4, 3) @ a\nb.sum()", "a.reshape(5, 3)", "c = a.T + 1"):
        result, iopub = run_probe(kernel, "check", {"source": cell})
        assert "error" not in result
        assert {message["msg_type"] for message in iopub} == {"status"}
    found, _ = run_probe(kernel, "check", {"source": "a.reshape(5, 3)"})
    assert found["findings"][0]["exception"] == "ValueError"  # the checks did run
    assert fingerprint(kernel) == before
