"""What a KernelSession reports to its listeners, as it follows the kernel's IOPub channel."""

from __future__ import annotations

from typing import Literal

import msgspec


class ExecutionStarted(msgspec.Struct, kw_only=True, tag=True):
    """A user execution began (IOPub `execute_input`)."""

    code: str
    msg_id: str
    execution_count: int | None = None


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


KernelEvent = ExecutionStarted | ExecutionFinished | KernelRestarted | KernelDied | StateChanged
