"""A CI-sized part of the field replay (benchmarks/field_replay.py): real public notebooks
and example scripts not written for crane, across libraries, each replayed on a fresh kernel:
lookahead predictions first, then every cell judged just before it runs, then run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(600)]
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "field_replay.py"
#: A fixed subset, one to three of each library, chosen for their short run time (under 25 s
#: each in the full replay), 13 notebooks. HoloViews' Bounds loads '../assets/penguins.png',
#: absent from the kernel's folder: a real crash.
PICKED = (
    "handson-mlp/tools_pandas.ipynb",
    "numpy-tutorials/content/tutorial-static_equilibrium.md",
    "handson-mlp/tools_numpy.ipynb",
    "handson-mlp/06_ensemble_learning_and_random_forests.ipynb",
    "pytorch-deep-learning/00_pytorch_fundamentals.ipynb",
    "pytorch-deep-learning/extras/solutions/00_pytorch_fundamentals_exercise_solutions.ipynb",
    "pytorch-deep-learning/extras/pytorch_most_common_errors.ipynb",
    "handson-mlp/tools_matplotlib.ipynb",
    "seaborn/examples/residplot.py",
    "xgboost/demo/guide-python/sklearn_evals_result.py",
    "time-series-forecasting/CH03/CH03_exercises_solution.ipynb",
    "holoviews:reference/elements/matplotlib/Bounds.ipynb",
    "holoviews:reference/elements/matplotlib/Curve.ipynb",
)


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("field_replay", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_script_and_markdown_cells() -> None:
    bench = _bench()
    script = "'''Doc'''\nimport numpy as np\n# %%\nx = np.ones(3)\n\n# %% [markdown]\n# text\n"
    assert bench.script_cells(script) == [
        "'''Doc'''\nimport numpy as np\n",
        "# %%\nx = np.ones(3)\n",
        "",
    ]
    gallery = "import a\n####################\n# Text only\n####################\ny = 1\n"
    assert [c for c in bench.script_cells(gallery) if c] == [
        "import a\n",
        "####################\ny = 1\n",
    ]
    markdown = (
        "# T\n```{code-cell} ipython3\n:tags: [hide]\nz = 2\n```\n```python\nshown = 1\n```\n"
    )
    assert bench.markdown_cells(markdown) == ["z = 2\n"]
    assert bench.markdown_cells("```python\nshown = 1\n```\n") == ["shown = 1\n"]


@pytest.mark.asyncio
async def test_field_replay_subset() -> None:
    bench = _bench()
    sources = [s for s in bench.all_sources() if s.path in PICKED]
    assert sorted(s.path for s in sources) == sorted(PICKED)
    assert len({s.library for s in sources}) >= 8
    results = await bench.run_all(sources)
    total = bench.summary(results)
    assert total["cells_run"] == total["cells"] >= 300
    problems: dict[str, dict[str, object]] = {}
    for r in results:
        found = {
            "false alarms": {p: r.messages[p] for p in r.false_alarms},
            "lookahead false alarms": {p: r.ahead_errors[p] for p in r.ahead_false},
            "kernel changes": r.kernel_changes,
            # the same cells run without checks on another kernel: every outcome the same
            "runs changed": r.runs_changed,
            "tool errors": r.tool_errors,
            "lookahead tool error": r.ahead_tool_error,
        }
        found = {kind: what for kind, what in found.items() if what}
        if found:
            problems[r.name] = found
    # no Error on a cell that then ran fine, no check that changed the kernel or failed
    assert problems == {}
    bounds = next(r for r in results if r.name.endswith("Bounds.ipynb"))
    assert sorted(bounds.crashed) == [1, 2]
    # after cell 2 crashed, the Error on cell 3 (its `penguins` was never bound) is shown
    assert bounds.hits == [2]
