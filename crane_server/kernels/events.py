"""What a KernelSession reports to its listeners, as it follows the kernel's IOPub channel."""

from __future__ import annotations

from typing import Literal

import msgspec


class ExecutionStarted(msgspec.Struct, kw_only=True, tag=True):
    """A user execution began (IOPub `execute_input`)."""

    code: str
    msg_id: str
    execution_count: int | None = None


class ExecutionRequested(msgspec.Struct, kw_only=True, tag=True):
    """Another client's execute_request turned the kernel busy (IOPub status busy): maybe a
    user cell (execute_input follows), maybe another tool's silent request. The earliest sign
    of a run: a dry run's twin is killed on it."""

    msg_id: str
    # crane's own requests seen busy before it: IOPub is ordered, so a busy that comes before
    # the busy of a request crane sent belongs to a request the kernel handled before that one
    own_started: int = 0


class ExecutionFinished(msgspec.Struct, kw_only=True, tag=True):
    """A user execution ended (IOPub status idle of its `execute_request`)."""

    code: str
    msg_id: str = ""
    execution_count: int | None = None
    status: Literal["ok", "error"] = "ok"


class KernelRestarted(msgspec.Struct, kw_only=True, tag=True):
    """A new kernel process answers on the same ports; cached state was dropped."""

    pid: int | None = None


class KernelDied(msgspec.Struct, kw_only=True, tag=True):
    """The kernel stopped answering or its process is gone."""

    reason: str = ""


class StateChanged(msgspec.Struct, kw_only=True, tag=True):
    """The session's view of the kernel state changed."""

    state: str


KernelEvent = (
    ExecutionStarted
    | ExecutionRequested
    | ExecutionFinished
    | KernelRestarted
    | KernelDied
    | StateChanged
)
