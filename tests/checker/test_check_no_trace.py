"""A check leaves the kernel untouched, even when the checked cell would mutate data."""

from __future__ import annotations

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import fingerprint, history, run_probe

pytestmark = pytest.mark.kernel

SETUP = (
    "import pandas as pd\nimport numpy as np\n"
    "df = pd.DataFrame({'a': [1.0, 2.0, None], 'b': ['x', 'y', 'z']})\n"
    "rows = [1, 2]\n"
    "class Recorder:\n"
    "    calls = []\n"
    "    def __repr__(self):\n"
    "        Recorder.calls.append('repr')\n"
    "        return 'R'\n"
    "    def __len__(self):\n"
    "        Recorder.calls.append('len')\n"
    "        return 1\n"
    "    @property\n"
    "    def value(self):\n"
    "        Recorder.calls.append('property')\n"
    "        return 1\n"
    "    def method(self):\n"
    "        Recorder.calls.append('method')\n"
    "rec = Recorder()"
)
MUTATING_CELL = (
    "df.drop(columns='b', inplace=True)\n"
    "df['new'] = df['a'] * 2\n"
    "del df['a']\n"
    "rows.append(3)\n"
    "rows.sort()\n"
    "df.fillna(0, inplace=True)\n"
    "print(len(rec), rec, rec.value)\n"
    "rec.method()\n"
    "import json\n"
    "created = 1\n"
    "df['missing_col']"
)


def test_check_leaves_no_trace(kernel: RunningKernel) -> None:
    assert kernel.execute(SETUP)["status"] == "ok"
    before = fingerprint(kernel)
    history_before = history(kernel)
    result, iopub = run_probe(kernel, "check", {"source": MUTATING_CELL})
    assert [f["code"] for f in result["findings"]] == ["pandas-missing-column"]
    assert result["findings"][0]["line"] == 11
    assert {message["msg_type"] for message in iopub} == {"status"}
    after = fingerprint(kernel)
    assert after == before
    assert "created" not in after["names"]
    assert history(kernel) == history_before
    state, _ = run_probe(kernel, "summarise", {"names": ["df", "rows"]})
    assert state["variables"]["df"]["columns"] == ["a", "b"]
    assert state["variables"]["rows"]["length"] == 2


def test_check_calls_no_user_code(kernel: RunningKernel) -> None:
    assert kernel.execute(SETUP)["status"] == "ok"
    run_probe(kernel, "check", {"source": MUTATING_CELL})
    result, _ = run_probe(kernel, "summarise", {"names": ["Recorder"]})
    assert "Recorder" in result["variables"]
    reply = kernel.client.execute_interactive(
        "assert Recorder.calls == [], Recorder.calls", timeout=30, output_hook=lambda msg: None
    )
    assert reply["content"]["status"] == "ok"


def test_check_imports_nothing(kernel: RunningKernel) -> None:
    assert kernel.execute("import pandas as pd\ndf = pd.DataFrame({'a': [1]})")["status"] == "ok"
    cell = "import torch\nfrom sklearn.linear_model import LinearRegression\nLinearRegression().fit(df, df['a'])\ntorch.ones(3)"
    result, _ = run_probe(kernel, "check", {"source": cell})
    assert result["findings"] == []
    modules = fingerprint(kernel)["modules"]
    assert "torch" not in modules and "sklearn" not in modules
