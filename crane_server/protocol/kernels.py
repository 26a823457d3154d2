"""What `crane-server kernels --json` prints: a JSON list of KernelRecord (one per file)."""

from __future__ import annotations

import msgspec


class KernelRecord(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A kernel connection file in the Jupyter runtime dir and what is known about its kernel."""

    kernel_id: str | None
    connection_file: str
    notebook_path: str | None = None
    state: str = "unknown"  # "idle" | "busy" | "unknown" | "stale"
    stale: bool = False  # the file exists but no kernel answered: not a kernel
    server_url: str | None = None  # the Jupyter server that manages this kernel, if any
    kernel_name: str | None = None
    implementation: str | None = None  # e.g. "ipython 9.1.0"
    language: str | None = None
    pid: int | None = None
    mapped_by: str | None = None  # "server-sessions" | "crane-sessions" | "jupyter_session"
    error: str | None = None  # why the file is stale
