"""Read and validate a Jupyter connection file (`kernel-<id>.json`)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from crane_server.errors import KernelNotFound

_REQUIRED = ("shell_port", "iopub_port", "control_port", "ip", "key")
_KERNEL_ID = re.compile(r"^kernel-(.+)\.json$")


def read_connection_file(path: Path) -> dict[str, Any]:
    """The file's connection info; KernelNotFound with a one-line reason when unusable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise KernelNotFound(f"no such connection file: {path}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise KernelNotFound(f"cannot read connection file {path}: {reason}") from exc
    try:
        info = json.loads(text)
    except ValueError as exc:
        raise KernelNotFound(f"malformed connection file {path}: not JSON") from exc
    if not isinstance(info, dict):
        raise KernelNotFound(f"malformed connection file {path}: not a JSON object")
    missing = [key for key in _REQUIRED if key not in info]
    if missing:
        raise KernelNotFound(f"malformed connection file {path}: missing {', '.join(missing)}")
    ports = [info[key] for key in _REQUIRED if key.endswith("_port")]
    if not all(isinstance(port, int) and 0 < port < 65536 for port in ports):
        raise KernelNotFound(f"malformed connection file {path}: invalid port numbers")
    return info


def kernel_id_from_path(path: Path) -> str | None:
    """`abc` for `.../kernel-abc.json`, else None."""
    match = _KERNEL_ID.match(path.name)
    return match.group(1) if match else None


def connection_kwargs(info: dict[str, Any]) -> dict[str, Any]:
    """The subset of the file that `KernelClient.load_connection_info` understands."""
    keys = (*_REQUIRED, "stdin_port", "hb_port", "transport", "signature_scheme", "kernel_name")
    return {key: info[key] for key in keys if key in info}
