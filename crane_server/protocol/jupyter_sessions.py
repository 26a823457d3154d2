"""The notebook-to-kernel map a Jupyter server writes for crane (`crane-sessions-<pid>.json`).

The crane Jupyter server extension (`crane_server.jupyter`) writes one such file per server
into the Jupyter runtime dir and rewrites it whenever a session is created, changed or
deleted; crane's kernel discovery reads it. The same object is served at `GET /crane/sessions`.
"""

from __future__ import annotations

import msgspec

SESSION_MAP_VERSION = 1
SESSION_MAP_PREFIX = "crane-sessions-"
# The `username` in the header of every message crane sends a kernel. A kernel answers each
# request with IOPub status busy/idle; the server extension keeps those of crane's requests
# from the browser, whose kernel status indicator would otherwise flicker to busy.
KERNEL_CLIENT_USERNAME = "crane-server"


class NotebookSession(msgspec.Struct, kw_only=True):
    """One Jupyter session: a document (notebook, console, file) and the kernel serving it."""

    session_id: str
    path: str  # as the Jupyter server knows it, relative to root_dir
    abs_path: str | None = None  # path resolved against root_dir, when the server has one
    name: str = ""
    type: str = "notebook"  # "notebook" | "console" | "file"
    kernel_id: str
    kernel_name: str | None = None
    connection_file: str | None = None
    execution_state: str | None = None


class SessionMap(msgspec.Struct, kw_only=True):
    """Every session of one Jupyter server."""

    version: int = SESSION_MAP_VERSION
    server_pid: int
    server_url: str | None = None
    root_dir: str | None = None
    updated: float = 0.0  # Unix time of the last rewrite
    sessions: list[NotebookSession] = msgspec.field(default_factory=list)
