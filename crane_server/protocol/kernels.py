"""Kernel wire formats: a Jupyter connection file (read) and `crane-server kernels --json`."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

Port = Annotated[int, msgspec.Meta(ge=1, le=65535)]


class ConnectionFile(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """A Jupyter `kernel-<id>.json` as crane reads it; other fields are ignored."""

    shell_port: Port
    iopub_port: Port
    control_port: Port
    stdin_port: Port | None = None
    hb_port: Port | None = None
    ip: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
    key: Annotated[str, msgspec.Meta(max_length=4096)]
    transport: Literal["tcp", "ipc"] = "tcp"
    signature_scheme: Annotated[str, msgspec.Meta(pattern=r"^hmac-[a-z0-9_]+$")] = "hmac-sha256"
    kernel_name: Annotated[str, msgspec.Meta(max_length=4096)] | None = None
    jupyter_session: Annotated[str, msgspec.Meta(max_length=4096)] | None = None


class KernelRecord(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A kernel connection file in the Jupyter runtime dir and what is known about its kernel."""

    kernel_id: str | None
    connection_file: str
    notebook_path: str | None = None
    # "idle" | "busy" | "unknown" | "stale" (no kernel answered) | "bad" (unusable file)
    state: str = "unknown"
    stale: bool = False  # the file exists but is not a kernel (no answer, or unusable)
    server_url: str | None = None  # the Jupyter server that manages this kernel, if any
    kernel_name: str | None = None
    implementation: str | None = None  # e.g. "ipython 9.1.0"
    language: str | None = None
    pid: int | None = None
    mapped_by: str | None = None  # "server-sessions" | "crane-sessions" | "jupyter_session"
    error: str | None = None  # why the file is stale or bad
    # Can a dry run's twin be sealed on this kernel's machine? "available (...)" or why not
    # (a runtime loaded in one kernel, such as CUDA, is said in that kernel's hover).
    dry_run: str | None = None
