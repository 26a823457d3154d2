"""Each way a check once ran, changed or stalled something in the user's kernel, checked for real.

The cells are only checked, never run: a file appearing, a tensor changing or the kernel
stalling means the checker called something it must not.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import run_probe

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(180)]

SETUP = """\
import os
import random
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
arr = np.arange(3.0)
s = pd.Series(['a', 'b'])
t = torch.tensor([-1.0, 2.0, -3.0])
relu = nn.ReLU(inplace=True)
victim = {victim!r}
"""


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("effects")


@pytest.fixture(scope="module")
def armed(runtime_dir: Path, sandbox: Path) -> Iterator[RunningKernel]:
    running = RunningKernel(runtime_dir)
    try:
        reply = running.execute(SETUP.format(victim=str(sandbox / "victim")))
        assert reply["status"] == "ok", reply
        yield running
    finally:
        running.shutdown()


def kernel_value(kernel: RunningKernel, expression: str) -> str:
    reply = kernel.client.execute(
        "", silent=True, store_history=False, user_expressions={"v": expression}
    )
    while True:
        message = kernel.client.get_shell_msg(timeout=30)
        if message["parent_header"].get("msg_id") == reply:
            result = message["content"]["user_expressions"]["v"]
            assert result["status"] == "ok", result
            return str(result["data"]["text/plain"])


CODE_RUNNING = [
    pytest.param("sorted([\"open({marker!r}, 'w')\", '1'], key=exec)", id="sorted-key-exec"),
    pytest.param("max([{marker!r}], key=lambda p: open(p, 'w'))", id="max-key-lambda"),
    pytest.param("sorted([victim, victim], key=os.remove)", id="sorted-key-os-remove"),
    pytest.param("s.map(lambda v: open({marker!r}, 'w'))", id="series-map-lambda"),
    pytest.param("s.apply(lambda v: open({marker!r}, 'w'))", id="series-apply-lambda"),
    pytest.param("s.rename(lambda v: open({marker!r}, 'w'))", id="rename-callable"),
    pytest.param("np.vectorize(exec)([\"open({marker!r}, 'w')\"])", id="np-vectorize-exec"),
    pytest.param("np.frompyfunc(exec, 1, 1)([\"open({marker!r}, 'w')\"])", id="np-frompyfunc"),
    pytest.param(
        "np.apply_along_axis(lambda r: open({marker!r}, 'w'), 0, arr)", id="apply-along-axis"
    ),
    pytest.param("list(map(exec, [\"open({marker!r}, 'w')\"]))", id="map-exec"),
]


@pytest.mark.parametrize("template", CODE_RUNNING)
def test_no_code_from_the_cell_runs(armed: RunningKernel, sandbox: Path, template: str) -> None:
    marker = sandbox / "marker"
    (sandbox / "victim").write_text("keep me")
    cell = template.format(marker=str(marker))
    run_probe(armed, "check", {"source": cell})
    assert not marker.exists(), f"checking {cell!r} ran code from the cell"
    assert (sandbox / "victim").read_text() == "keep me", f"checking {cell!r} removed a file"


@pytest.mark.parametrize(
    "cell",
    [
        pytest.param("y = F.relu(t, inplace=True)", id="functional-inplace"),
        pytest.param("z = relu(t)", id="inplace-layer"),
        pytest.param("np.add(arr, 1, out=arr)", id="ufunc-out"),
        pytest.param("np.add(arr, 1, arr)", id="ufunc-positional-out"),
        pytest.param("np.multiply(arr, 2, out=arr)", id="multiply-out"),
    ],
)
def test_user_data_never_changes(armed: RunningKernel, cell: str) -> None:
    run_probe(armed, "check", {"source": cell})
    assert kernel_value(armed, "t.tolist()") == "[-1.0, 2.0, -3.0]"
    assert kernel_value(armed, "arr.tolist()") == "[0.0, 1.0, 2.0]"


@pytest.mark.parametrize(
    "cell",
    [
        pytest.param("total = sum(range(10**9))", id="sum-huge-range"),
        pytest.param("x = 10 ** (10 ** 7)", id="huge-power"),
        pytest.param("z = np.ones((16000, 16000))", id="huge-allocation"),
        pytest.param("w = 'x' * 10**10", id="huge-string"),
        pytest.param("v = list(range(10**9))", id="huge-list"),
        pytest.param("u = 1 << (10 ** 9)", id="huge-shift"),
    ],
)
def test_checks_of_heavy_cells_return_at_once(armed: RunningKernel, cell: str) -> None:
    started = time.perf_counter()
    run_probe(armed, "check", {"source": cell})
    elapsed = time.perf_counter() - started
    # Evaluating any of these takes seconds to minutes (or gigabytes); judging nothing is instant.
    assert elapsed < 3.0, f"checking {cell!r} took {elapsed:.1f} s"


def test_large_tensors_judged_on_meta_load_torch_internals_once(kernel: RunningKernel) -> None:
    # torch's meta-device decompositions import sympy (~470 modules) the first time. Those
    # stay with torch (unloading them left torch holding modules a later `import sympy` would
    # load again, and re-importing them stalled every check); later checks add nothing.
    setup = "import numpy\nimport torch\nfrom torch import nn\nbig = torch.zeros(2000, 1000)\nlin = nn.Linear(999, 4)"
    assert kernel.execute(setup)["status"] == "ok"
    modules = "' '.join(sorted(__import__('sys').modules))"

    def loaded() -> set[str]:
        return set(eval(kernel_value(kernel, modules)).split())

    before = loaded()
    first, _ = run_probe(kernel, "check", {"source": "out = lin(big)"})
    assert [f["code"] for f in first["findings"]] == ["torch-shape-mismatch"]
    after_first = loaded()
    roots = {name.split(".", 1)[0] for name in after_first - before} - {"_crane_probe"}
    loaded_roots = {name.split(".", 1)[0] for name in before}
    stdlib = set(__import__("sys").stdlib_module_names)
    assert roots <= {"sympy", "mpmath"} | stdlib | loaded_roots, roots
    for _ in range(3):
        again, _ = run_probe(kernel, "check", {"source": "out = lin(big)"})
        assert again["findings"] == first["findings"]
    assert loaded() == after_first
    assert kernel.execute("print(1)")["execution_count"] == 2  # the setup, then this


@pytest.mark.parametrize(
    ("setup", "cell"),
    [
        pytest.param(
            "import numpy as np\nimport pandas as pd\n"
            "s = pd.Series([1.0, np.nan, 3.0, 4.0, np.nan, 6.0])",
            "smooth = s.interpolate(method='cubic')",
            id="interpolate-imports-scipy",
        ),
        pytest.param(
            "import pandas as pd\ndf = pd.DataFrame({'a': [1.0, 2.0], 'b': [2.0, 1.0]})",
            "ranks = df.corr(method='kendall')",
            id="kendall-imports-scipy",
        ),
    ],
)
def test_library_code_that_imports_lazily_leaves_the_users_run_working(
    kernel: RunningKernel, setup: str, cell: str
) -> None:
    """Library code the checker evaluates may import lazily (pandas imports scipy for a
    cubic interpolation). A check once imported it and unloaded it again, after which the
    user's own run of the cell failed: numpy's extensions cannot be loaded twice. The import
    is refused now: nothing new is loaded, and the real run works."""
    assert kernel.execute(setup)["status"] == "ok"
    modules = "' '.join(m for m in sorted(__import__('sys').modules) if 'crane' not in m)"
    before = set(eval(kernel_value(kernel, modules)).split())
    assert "scipy" not in before
    result, _ = run_probe(kernel, "check", {"source": cell})
    assert result["findings"] == []
    assert set(eval(kernel_value(kernel, modules)).split()) == before
    reply = kernel.execute(cell)
    assert reply["status"] == "ok", reply.get("evalue")
