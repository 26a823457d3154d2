"""Findings: what the checker (rules) and the LLM tier say about a target cell."""

from __future__ import annotations

from typing import Literal

import msgspec

Severity = Literal["error", "warning", "information", "hint"]


class Replacement(msgspec.Struct, kw_only=True):
    """A text edit inside the target cell (1-based line, 0-based columns) for a quick fix."""

    line: int
    column: int
    end_line: int
    end_column: int
    new_text: str


class Evidence(msgspec.Struct, kw_only=True):
    """Runtime facts that justify a finding, for people and for the LLM prompt."""

    facts: list[str] = msgspec.field(default_factory=list)
    closest: str | None = None
    based_on_last_snapshot: bool = False


class Finding(msgspec.Struct, kw_only=True):
    """One predicted crash (or note) in the target cell.

    `line` is 1-based in the target cell; `column`/`end_column` are 0-based.
    """

    code: str
    exception: str
    message: str
    line: int
    column: int = 0
    end_line: int | None = None
    end_column: int | None = None
    severity: Severity = "error"
    source: str = "crane"
    evidence: Evidence = msgspec.field(default_factory=Evidence)
    fix: str | None = None
    replacements: list[Replacement] = msgspec.field(default_factory=list)
    related_cell: int | None = None
    # Set when the crash is inside a function defined elsewhere in the checked source: the
    # lines (1-based, of the checked source) of the top-level statement whose call reaches it.
    statement_line: int | None = None
    statement_end_line: int | None = None


# CheckResult lives in protocol/check.py (it embeds the LLM outcome); re-exported here.
from crane_server.protocol.check import CheckResult  # noqa: E402

__all__ = ["CheckResult", "Evidence", "Finding", "Replacement", "Severity"]
