"""IOPub order tells a request the kernel handled before crane's own from one after it."""

from __future__ import annotations

from typing import Any

from crane_server.kernels.activity import ActivityTracker
from crane_server.kernels.events import ExecutionRequested, KernelEvent


def _status(parent_id: str, state: str) -> dict[str, Any]:
    return {
        "msg_type": "status",
        "parent_header": {"msg_id": parent_id, "msg_type": "execute_request"},
        "content": {"execution_state": state},
    }


def test_a_foreign_busy_carries_how_many_of_cranes_requests_began_before_it() -> None:
    events: list[KernelEvent] = []
    tracker = ActivityTracker(events.append)
    tracker.remember_own("crane-twin-start")
    # another tool's silent request, handled before crane's start request
    tracker.on_iopub(_status("viewer-1", "busy"))
    tracker.on_iopub(_status("viewer-1", "idle"))
    tracker.on_iopub(_status("crane-twin-start", "busy"))
    tracker.on_iopub(_status("crane-twin-start", "idle"))
    # a user's run sent after it
    tracker.on_iopub(_status("user-run", "busy"))
    requested = [e for e in events if isinstance(e, ExecutionRequested)]
    assert [(e.msg_id, e.own_started) for e in requested] == [("viewer-1", 0), ("user-run", 1)]
    assert tracker.own_started == 1
