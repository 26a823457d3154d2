"""Read and validate a Jupyter connection file (`kernel-<id>.json`), never blocking on it.

The file is stat'ed before it is opened: anything but a regular file (a FIFO, a device, a
directory, a socket) is refused without opening it, and the open itself is non-blocking, so
a FIFO swapped in between the stat and the open cannot stall the reader either. At most
MAX_BYTES are read, and the JSON is validated against `protocol.kernels.ConnectionFile`.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import os
import re
import stat
from pathlib import Path
from typing import Any

import msgspec

from crane_server.errors import KernelNotFound
from crane_server.protocol.kernels import ConnectionFile

MAX_BYTES = 64 * 1024  # real files are ~300 bytes; a long jupyter_session path still fits
READ_TIMEOUT_S = 5.0  # a file system that does not answer (a dead network mount)
_KERNEL_ID = re.compile(r"^kernel-(.+)\.json$")
# The hashes hashlib has on every build and hmac accepts (the shake_* ones need a length).
_DIGESTS = frozenset(
    {"md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "blake2s"}
    | {"sha3_224", "sha3_256", "sha3_384", "sha3_512"}
)
_HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$")
_KIND = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def read_connection_file(path: Path) -> dict[str, Any]:
    """The file's connection info; KernelNotFound with a one-line reason when unusable."""
    data = _read_bounded(path)
    try:
        parsed = msgspec.json.decode(data, type=ConnectionFile)
    except RecursionError as exc:
        raise KernelNotFound(f"malformed connection file {path}: JSON nested too deeply") from exc
    except msgspec.ValidationError as exc:
        raise KernelNotFound(f"malformed connection file {path}: {_one_line(exc)}") from exc
    except msgspec.DecodeError as exc:
        raise KernelNotFound(f"malformed connection file {path}: not JSON") from exc
    _check_semantics(path, parsed)
    return msgspec.to_builtins(parsed)  # type: ignore[no-any-return]


async def read_connection_file_async(
    path: Path, *, timeout: float = READ_TIMEOUT_S
) -> dict[str, Any]:
    """`read_connection_file` in a worker thread, bounded in time: never stalls the loop."""
    try:
        return await asyncio.wait_for(asyncio.to_thread(read_connection_file, path), timeout)
    except asyncio.TimeoutError as exc:
        raise KernelNotFound(f"cannot read connection file {path}: no answer in time") from exc


def _read_bounded(path: Path) -> bytes:
    return read_regular_file(path, MAX_BYTES)


def read_regular_file(path: Path, max_bytes: int) -> bytes:
    """At most `max_bytes` of a regular file, opened without blocking; KernelNotFound else."""
    try:
        status = os.stat(path)
    except FileNotFoundError as exc:
        raise KernelNotFound(f"no such connection file: {path}") from exc
    except (OSError, ValueError) as exc:
        raise KernelNotFound(f"cannot read connection file {path}: {_reason(exc)}") from exc
    _require_regular(path, status)
    if status.st_size > max_bytes:
        raise KernelNotFound(
            f"malformed connection file {path}: {status.st_size} bytes (limit {max_bytes})"
        )
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError) as exc:
        raise KernelNotFound(f"cannot read connection file {path}: {_reason(exc)}") from exc
    try:
        _require_regular(path, os.fstat(fd))  # the file may have been swapped since the stat
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise KernelNotFound(f"cannot read connection file {path}: {_reason(exc)}") from exc
    finally:
        os.close(fd)
    if size > max_bytes:
        raise KernelNotFound(f"malformed connection file {path}: larger than {max_bytes} bytes")
    return b"".join(chunks)


def _require_regular(path: Path, status: os.stat_result) -> None:
    if not stat.S_ISREG(status.st_mode):
        kind = _KIND.get(stat.S_IFMT(status.st_mode), "not a regular file")
        raise KernelNotFound(f"cannot read connection file {path}: it is {kind}")


def _check_semantics(path: Path, info: ConnectionFile) -> None:
    """What the schema cannot say: a usable address and a signature hash hmac knows."""
    digest = info.signature_scheme.split("-", 1)[1]
    if digest not in _DIGESTS:
        raise KernelNotFound(
            f"malformed connection file {path}: unsupported signature_scheme "
            f"{info.signature_scheme!r}"
        )
    if info.transport == "tcp" and not _is_host(info.ip):
        raise KernelNotFound(f"malformed connection file {path}: invalid ip {info.ip[:80]!r}")
    if info.transport == "ipc" and "\x00" in info.ip:
        raise KernelNotFound(f"malformed connection file {path}: invalid ipc path")


def _is_host(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return bool(_HOSTNAME.match(text)) and ".." not in text
    return True


def _one_line(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:197] + "..."


def _reason(exc: Exception) -> str:
    if isinstance(exc, OSError):
        if exc.errno == errno.ELOOP:
            return "too many levels of symbolic links"
        if exc.strerror:
            return exc.strerror
    return _one_line(exc)


def kernel_id_from_path(path: Path) -> str | None:
    """`abc` for `.../kernel-abc.json`, else None."""
    match = _KERNEL_ID.match(path.name)
    return match.group(1) if match else None


def connection_kwargs(info: dict[str, Any]) -> dict[str, Any]:
    """The subset of the file that `KernelClient.load_connection_info` understands."""
    keys = (
        *("shell_port", "iopub_port", "control_port", "stdin_port", "hb_port", "ip", "key"),
        *("transport", "signature_scheme", "kernel_name"),
    )
    return {key: info[key] for key in keys if info.get(key) is not None}
