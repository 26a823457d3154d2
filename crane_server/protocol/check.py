"""The result of checking one cell: what `crane-server check --json` prints."""

from __future__ import annotations

import msgspec

from crane_server.protocol.dry_run import DryRun
from crane_server.protocol.findings import Finding
from crane_server.protocol.llm import LlmOutcome


class CheckResult(msgspec.Struct, kw_only=True):
    """The verdict for one target cell: rule findings, merged LLM findings, timings."""

    crash: bool
    findings: list[Finding] = msgspec.field(default_factory=list)
    timings: dict[str, float] = msgspec.field(default_factory=dict)
    cell: int | None = None  # the code cell's number, from 1, as the text output says
    execution_count: int | None = None
    # "rules" (live objects), "static" (syntax and names only: the kernel was busy),
    # "rules+llm"; `partial` is true when the live-object rules did not run.
    engine: str = "rules"
    partial: bool = False
    # The walk stopped at its time budget: lines after that point were not judged.
    budget_spent: bool = False
    error: str | None = None
    llm: LlmOutcome | None = None
    # What the sealed twin saw when it ran the cell (None: no dry run was asked for).
    dry_run: DryRun | None = None


class AheadReport(msgspec.Struct, kw_only=True):
    """`crane-server check NOTEBOOK --ahead --json`: every code cell predicted as Run All
    would run it, from a fresh kernel that ran only the first `ran` code cells."""

    notebook: str
    ran: int  # how many leading code cells were really run (by default the import cells)
    results: list[CheckResult] = msgspec.field(default_factory=list)
    stopped_at: int | None = None  # the code cell (from 1) where Run All would first crash
    unfollowed: int | None = None  # the first code cell the walk could not follow (%%magic)
    # With the dry run: the code cell (from 1) where the twin running the pending cells in
    # order stopped without a verdict, and why (the cells below it are the walk's alone).
    twin_stopped_at: int | None = None
    twin_stop_reason: str | None = None
    error: str | None = None
