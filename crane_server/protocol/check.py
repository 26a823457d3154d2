"""The result of checking one cell: what `crane-server check --json` prints."""

from __future__ import annotations

import msgspec

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
    error: str | None = None
    llm: LlmOutcome | None = None
