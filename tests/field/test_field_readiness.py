"""A CI-sized part of the field readiness check: real HoloViews example notebooks, each on a
fresh kernel, judged through the server's engine path before and while running top to bottom."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = [pytest.mark.kernel]
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "field_readiness.py"
#: Small notebooks with cross-cell names (imports in cell 1, values used further down);
#: Bounds loads '../assets/penguins.png', absent from the kernel's folder: a real crash.
PICKED = ("Bars.ipynb", "Bounds.ipynb", "Curve.ipynb", "Histogram.ipynb")


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("field_readiness", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.asyncio
async def test_real_notebooks_get_no_false_errors(tmp_path: Path) -> None:
    bench = _bench()
    paths = [p for p in bench.field_notebooks() if p.name in PICKED]
    assert sorted(p.name for p in paths) == sorted(PICKED)
    results = await bench.run_all(paths)
    total = bench.summary(results)
    assert total["cells"] >= 20
    # the cells after the first wait for the imports: Hints, not Errors
    assert total["hints_before_running"] >= 10
    assert total["false_errors_before_running"] == 0, [r.messages for r in results]
    assert total["false_errors_just_before_each_run"] == 0, [r.messages for r in results]
    bounds = next(r for r in results if r.name.endswith("Bounds.ipynb"))
    assert bounds.crashed == [1, 2]
    # after cell 2 crashed, the Error on cell 3 (its `penguins` was never bound) is shown
    assert bounds.errors_just_before == [2]
