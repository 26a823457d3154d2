"""In-process walks in these tests get a generous time budget: they judge what the rules
predict, and a slow or busy test machine must not turn a prediction into a miss. The budget
itself is tested in test_walk_budget.py; how often it runs out on real data is measured by
`crane-server eval` and the benchmarks."""

from __future__ import annotations

import pytest

from crane_server.probe.interpreter import checker as checker_module

TEST_TIME_BUDGET_S = 10.0
TEST_WALL_LIMIT_S = 30.0


@pytest.fixture(autouse=True)
def generous_walk_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checker_module, "TIME_BUDGET_S", TEST_TIME_BUDGET_S)
    monkeypatch.setattr(checker_module, "WALL_LIMIT_S", TEST_WALL_LIMIT_S)
