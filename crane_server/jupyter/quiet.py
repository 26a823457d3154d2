"""Keep the IOPub status of crane's own kernel requests from the browser.

A kernel answers every request, crane's silent probes included, with IOPub status busy and
idle, and jupyter_server forwards IOPub to every browser attached to the kernel. JupyterLab
sets its kernel status indicator from any status whose request type it tracks
(`execute_request` is tracked), so each probe would flash the indicator to busy. Crane marks
its requests with `KERNEL_CLIENT_USERNAME`; the websocket connection drops the status
messages whose parent carries that mark and forwards everything else unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from crane_server.protocol.jupyter_sessions import KERNEL_CLIENT_USERNAME

_PATCHED = "_crane_hides_own_status"


def is_crane_status(session: Any, channel: str | None, msg_list: list[Any]) -> bool:
    """Tell whether a raw kernel message is IOPub status caused by one of crane's requests."""
    if channel != "iopub":
        return False
    try:
        _, parts = session.feed_identities(msg_list)
        header = session.unpack(parts[1])
        if header.get("msg_type") != "status":
            return False
        parent = session.unpack(parts[2])
    except Exception:
        return False  # never lose a message crane cannot read
    return isinstance(parent, dict) and parent.get("username") == KERNEL_CLIENT_USERNAME


def hide_crane_status(connection_class: Any) -> bool:
    """Wrap `handle_outgoing_message` of jupyter_server's kernel websocket connection once."""
    original = getattr(connection_class, "handle_outgoing_message", None)
    if original is None or getattr(original, _PATCHED, False):
        return False

    @functools.wraps(original)
    def handle_outgoing_message(self: Any, stream: Any, outgoing_msg: list[Any]) -> None:
        channel = stream if isinstance(stream, str) else getattr(stream, "channel", None)
        if is_crane_status(self.session, channel, outgoing_msg):
            return
        original(self, stream, outgoing_msg)

    setattr(handle_outgoing_message, _PATCHED, True)
    wrapped: Callable[..., None] = handle_outgoing_message
    connection_class.handle_outgoing_message = wrapped
    return True
