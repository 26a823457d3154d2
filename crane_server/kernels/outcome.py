"""The result of a real, user-style execution in a kernel crane started itself."""

from __future__ import annotations

from typing import Literal

import msgspec


class ExecutionOutcome(msgspec.Struct, kw_only=True, omit_defaults=True):
    """How one execution ended: ok, error (with the exception), the kernel died (why in
    `evalue`), or no reply in time."""

    status: Literal["ok", "error", "timeout", "died"]
    execution_count: int | None = None
    ename: str | None = None
    evalue: str | None = None
    traceback: list[str] = msgspec.field(default_factory=list)

    @classmethod
    def from_reply(cls, content: dict[str, object]) -> ExecutionOutcome:
        """Build from an `execute_reply` content (status `aborted` counts as an error)."""
        count = content.get("execution_count")
        count = count if isinstance(count, int) else None
        if content.get("status") == "ok":
            return cls(status="ok", execution_count=count)
        traceback = content.get("traceback")
        default_name = "Aborted" if content.get("status") == "aborted" else "Error"
        return cls(
            status="error",
            execution_count=count,
            ename=str(content.get("ename", default_name)),
            evalue=str(content.get("evalue", "")),
            traceback=[str(line) for line in traceback] if isinstance(traceback, list) else [],
        )
