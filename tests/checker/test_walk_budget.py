"""The walk's time budget is the walking thread's CPU time: the user's own background threads
in the kernel (a training loop, a data pipeline) neither use it up nor make findings come and go.

No assertion here depends on how fast the machine is: the budget is charged while the walking
thread waits and other threads burn CPU, and the over-budget walk runs against a tiny budget.
"""

from __future__ import annotations

import ast
import threading
import time
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest

from crane_server.probe.interpreter import checker as checker_module
from crane_server.probe.interpreter.checker import Checker, StopWalk, walk_cell

# The product's values, read before tests/checker/conftest.py loosens them for rule tests.
PRODUCT_TIME_BUDGET_S = checker_module.TIME_BUDGET_S
PRODUCT_WALL_LIMIT_S = checker_module.WALL_LIMIT_S

STEP = "    frame = frame.assign(**{'c%d' % i: frame['a'] * i}).sort_values('b').reset_index(drop=True)\n"
HEAVY_CELL = "for i in range(60):\n" + STEP * 3 + "frame['missing']"


@pytest.fixture(autouse=True)
def product_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checker_module, "TIME_BUDGET_S", PRODUCT_TIME_BUDGET_S)
    monkeypatch.setattr(checker_module, "WALL_LIMIT_S", PRODUCT_WALL_LIMIT_S)


@pytest.fixture
def busy_background_threads() -> Iterator[None]:
    """Two threads of the 'user' multiplying matrices (numpy releases the GIL: real CPU)."""
    stop = threading.Event()

    def burn() -> None:
        matrix = np.ones((400, 400))
        while not stop.is_set():
            matrix @ matrix

    threads = [threading.Thread(target=burn, daemon=True) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)


def _namespace() -> dict[str, object]:
    frame = pd.DataFrame({"a": range(2_000), "b": range(2_000)})
    return {"__name__": "__main__", "pd": pd, "frame": frame}


def test_cpu_burnt_by_other_threads_is_not_charged_to_the_walk(
    busy_background_threads: None,
) -> None:
    checker = Checker(ast.parse("x = 1"), ["x = 1"], _namespace(), 0, None)
    process_started = time.process_time()
    waited = time.monotonic()
    # The walking thread waits (no CPU of its own) until the process has burnt twice the
    # budget, within the wall-clock limit.
    while (
        time.process_time() - process_started < 2 * checker_module.TIME_BUDGET_S
        and time.monotonic() - waited < checker_module.WALL_LIMIT_S / 2
    ):
        time.sleep(0.02)
    process_cpu = time.process_time() - process_started
    # What the old accounting (the whole process's CPU) would have charged: over the budget.
    assert process_cpu > checker_module.TIME_BUDGET_S
    checker.check_budget()  # raises StopWalk when the budget is spent
    assert checker.budget_spent == [False]


def test_a_walk_longer_than_its_budget_stops_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checker_module, "TIME_BUDGET_S", 60.0)
    monkeypatch.setattr(checker_module, "WALL_LIMIT_S", 60.0)
    alone, _, spent_alone = walk_cell(HEAVY_CELL, _namespace())
    assert not spent_alone
    assert [(f["code"], f["exception"], f["line"]) for f in alone] == [
        ("pandas-missing-column", "KeyError", 5)
    ]
    monkeypatch.setattr(checker_module, "TIME_BUDGET_S", 0.002)
    findings, errors, spent = walk_cell(HEAVY_CELL, _namespace())
    assert errors == []
    assert spent and findings == []


def test_the_wall_clock_limit_stops_a_walk_whose_thread_gets_no_cpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(checker_module, "WALL_LIMIT_S", 0.05)
    checker = Checker(ast.parse("x = 1"), ["x = 1"], _namespace(), 0, None)
    time.sleep(0.1)
    with pytest.raises(StopWalk):
        checker.check_budget()
    assert checker.budget_spent == [True]
