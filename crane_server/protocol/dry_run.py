"""The dry run's wire format: what the sealed twin saw when it ran the cell."""

from __future__ import annotations

from typing import Literal

import msgspec

# raised: the cell raised, for real, in the twin; clean: it ran to its end; unknown: the
# twin cannot vouch (a denied operation, a budget, a magic...); unavailable: no twin can
# run in this kernel (say why); off: the dry run was not asked for.
DryRunOutcome = Literal["raised", "clean", "unknown", "unavailable", "off"]


class TracebackFrame(msgspec.Struct, kw_only=True):
    """One frame of the twin's traceback; `file` is "cell" for the checked cell itself."""

    file: str
    line: int | None = None
    function: str = ""
    text: str = ""


class DryRun(msgspec.Struct, kw_only=True):
    """The twin's verdict on one cell, tied to the kernel state it ran on."""

    outcome: DryRunOutcome
    reason: str | None = None  # for unknown and unavailable: why, in words for the hover
    exception: str | None = None  # for raised: the type's name, e.g. "KeyError"
    message: str | None = None  # str() of the exception
    line: int | None = None  # 1-based in the cell: the innermost cell line on the traceback
    traceback: list[TracebackFrame] = msgspec.field(default_factory=list)
    execution_count: int | None = None
    elapsed_ms: float | None = None  # start request -> report read
    fork_ms: float | None = None  # how long the fork paused the kernel
    cached: bool = False
