"""One twin per pass: its budget, and which earlier runs a new list of cells may reuse."""

from __future__ import annotations

from crane_server.lsp.dry_runs import pass_budget
from crane_server.protocol.dry_run import DryRun
from crane_server.twin.runner import _Ran

CLEAN = DryRun(outcome="clean")
RAISED = DryRun(outcome="raised", exception="KeyError", line=1)
BUDGET = DryRun(outcome="unknown", reason="the cell ran past the dry run's time budget")


def test_the_budget_is_per_cell_capped_per_document() -> None:
    assert pass_budget(1, 3.0, 10.0) == 3.0
    assert pass_budget(2, 3.0, 10.0) == 6.0
    assert pass_budget(50, 3.0, 10.0) == 10.0
    assert pass_budget(4, 12.0, 10.0) == 12.0  # one cell's own budget is never cut


def test_a_run_that_raised_is_reused_for_the_same_cells_up_to_the_raise() -> None:
    ran = _Ran(["a", "b", "c"], 6.0, [CLEAN, RAISED])
    assert ran.stopped_within(["a", "b", "c", "d"], 10.0)
    assert ran.stopped_within(["a", "b"], 3.0)
    assert not ran.stopped_within(["a", "B", "c"], 6.0)  # a cell before the raise changed
    assert not ran.stopped_within(["a"], 3.0)  # the new list ends before the raise


def test_a_run_that_ran_clean_is_never_reused_for_more_cells() -> None:
    assert not _Ran(["a", "b"], 6.0, [CLEAN, CLEAN]).stopped_within(["a", "b", "c"], 9.0)


def test_a_stop_on_the_budget_is_reused_only_under_no_larger_budget() -> None:
    ran = _Ran(["a", "slow"], 6.0, [CLEAN, BUDGET])
    assert ran.stopped_within(["a", "slow", "c"], 6.0)
    assert not ran.stopped_within(["a", "slow", "c"], 9.0)
