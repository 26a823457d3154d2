"""The walk's time budget is the walking thread's CPU time: the user's own background threads
in the kernel (a training loop, a data pipeline) neither use it up nor make findings come and go."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest

from crane_server.probe.interpreter.checker import TIME_BUDGET_S, walk_cell

# About half the budget of walking: 60 unrolled iterations of three frame operations each.
STEP = "    frame = frame.assign(**{'c%d' % i: frame['a'] * i}).sort_values('b').reset_index(drop=True)\n"
HEAVY_CELL = "for i in range(60):\n" + STEP * 3 + "frame['missing']"


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


def test_background_threads_do_not_spend_the_walks_budget(busy_background_threads: None) -> None:
    thread_started, process_started = time.thread_time(), time.process_time()
    findings, errors, spent = walk_cell(HEAVY_CELL, _namespace())
    walk_cpu = time.thread_time() - thread_started
    process_cpu = time.process_time() - process_started
    assert errors == []
    assert not spent, f"budget spent: walk {walk_cpu:.3f} s, process {process_cpu:.3f} s"
    assert [(f["code"], f["exception"], f["line"]) for f in findings] == [
        ("pandas-missing-column", "KeyError", 5)
    ]
    # What the old accounting (CPU time of the whole process) would have charged the walk:
    # the background threads' work too. Shown, not timed: the finding above is what counts.
    assert process_cpu > walk_cpu


def test_a_walk_longer_than_its_budget_stops_and_says_so() -> None:
    cell = "for i in range(60):\n" + STEP * 12 + "frame['missing']"
    started = time.thread_time()
    findings, errors, spent = walk_cell(cell, _namespace())
    assert errors == []
    assert spent and findings == []
    assert time.thread_time() - started >= TIME_BUDGET_S
