"""Follow a kernel's IOPub: is a user cell running, which one, and how did it end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from crane_server.kernels.events import (
    ExecutionFinished,
    ExecutionRequested,
    ExecutionStarted,
    KernelEvent,
    StateChanged,
)

_OWN_IDS_KEPT = 512


class ActivityTracker:
    """Busy/idle from the status of user `execute_request`s; crane's own requests are ignored.

    A user cell is an execute_request that IOPub announces with `execute_input`. Silent
    requests never are: another tool's probe (a second crane, a variable viewer) is not a cell,
    and its brief busy must not be reported as one.
    """

    def __init__(self, emit: Callable[[KernelEvent], None]) -> None:
        self.state = "unknown"
        self.execution_count: int | None = None  # of the last user execution seen
        self.finished_runs = 0  # user executions seen to end (idle), ever
        self.own_started = 0  # crane's own requests seen busy, ever (IOPub order)
        self._emit = emit
        self._own: dict[str, None] = {}  # crane's silent requests (bounded, oldest dropped)
        self._active: set[str] = set()  # user execute_requests seen busy, not yet idle
        self._inputs: dict[str, ExecutionStarted] = {}
        self._errors: set[str] = set()
        self._idle_waiters: dict[str, asyncio.Future[None]] = {}

    def pending_code(self) -> list[str] | None:
        """Code of the user cells running now; None when one started before we attached."""
        if not self._active:
            return []
        codes = [self._inputs[msg_id].code for msg_id in self._active if msg_id in self._inputs]
        return codes if len(codes) == len(self._active) else None

    def set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self._emit(StateChanged(state=state))

    def remember_own(self, msg_id: str) -> None:
        """Mark a request as crane's: its busy/idle says nothing about the user's cells."""
        self._own[msg_id] = None
        while len(self._own) > _OWN_IDS_KEPT:
            del self._own[next(iter(self._own))]

    def idle_future(self, msg_id: str) -> asyncio.Future[None]:
        """Resolved when IOPub reports the end of execute_request `msg_id`."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._idle_waiters[msg_id] = future
        future.add_done_callback(lambda _: self._idle_waiters.pop(msg_id, None))
        return future

    def shell_answered(self) -> None:
        """The shell answered a request of ours: no cell was running at that moment."""
        if not self._active and self.state in ("unknown", "busy"):
            self.set_state("idle")

    def reset(self, state: str) -> None:
        """Forget every execution in flight (restart, death)."""
        self._active.clear()
        self._inputs.clear()
        self._errors.clear()
        if state != "dead":
            self.execution_count = None
        self.set_state(state)

    def on_iopub(self, message: dict[str, Any]) -> None:
        msg_type = message.get("msg_type") or message["header"].get("msg_type")
        parent = message.get("parent_header") or {}
        parent_id = parent.get("msg_id")
        content = message.get("content") or {}
        if msg_type == "status":
            if parent.get("msg_type") == "execute_request" and parent_id not in self._own:
                self._on_status(content.get("execution_state"), parent_id)
            elif parent_id in self._own and content.get("execution_state") == "busy":
                self.own_started += 1
        elif msg_type == "execute_input" and parent_id:
            if parent_id not in self._own:
                self._active.add(parent_id)
                self.set_state("busy")
            count = content.get("execution_count")
            started = ExecutionStarted(
                code=str(content.get("code", "")),
                msg_id=parent_id,
                execution_count=count if isinstance(count, int) else None,
            )
            self._inputs[parent_id] = started
            if started.execution_count is not None:
                self.execution_count = started.execution_count
            self._emit(started)
        elif msg_type == "error" and parent_id in self._inputs:
            self._errors.add(parent_id)

    def _on_status(self, state: str | None, parent_id: str | None) -> None:
        if not parent_id:
            return
        if state == "busy":
            self._emit(ExecutionRequested(msg_id=parent_id, own_started=self.own_started))
        if state == "idle":
            if parent_id in self._active:
                self.finished_runs += 1
            self._active.discard(parent_id)
            started = self._inputs.pop(parent_id, None)
            if started is not None:
                failed = parent_id in self._errors
                self._errors.discard(parent_id)
                self._emit(
                    ExecutionFinished(
                        code=started.code,
                        msg_id=parent_id,
                        execution_count=started.execution_count,
                        status="error" if failed else "ok",
                    )
                )
            if not self._active:
                self.set_state("idle")
            waiter = self._idle_waiters.get(parent_id)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
