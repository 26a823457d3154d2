"""`crane-server inspect (--connection-file F | --server URL --kernel ID) [NAME ...] [--json]`."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import msgspec

from crane_server.commands.remote_options import (
    add_server_arguments,
    attach_remote,
    wants_server,
)
from crane_server.errors import CraneError, KernelBusy, ProbeError, SettingsError
from crane_server.kernels.session import KernelSession
from crane_server.protocol import NameInventory, RuntimeSnapshot, VariableSummary

_CATEGORIES = "SVR"


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare this subcommand's arguments."""
    parser.add_argument("names", nargs="*", metavar="NAME", help="names to summarise (default all)")
    parser.add_argument("--connection-file", type=Path, help="kernel-*.json (or --server)")
    parser.add_argument("--json", action="store_true", help="print the RuntimeSnapshot as JSON")
    parser.add_argument(
        "--categories", default=_CATEGORIES, help="any of S (structure), V (values), R (types)"
    )
    parser.add_argument(
        "--timeout", type=float, default=5.0, help="seconds to wait for the kernel (default 5)"
    )
    add_server_arguments(parser)


def run(args: argparse.Namespace) -> int:
    categories = _parse_categories(args.categories)
    remote = wants_server(args, args.connection_file)
    if not remote and args.connection_file is None:
        raise SettingsError("give --connection-file FILE or --server URL --kernel ID")
    snapshot = asyncio.run(_inspect(args, args.names, categories, args.timeout, remote=remote))
    if args.json:
        sys.stdout.write(msgspec.json.encode(snapshot).decode() + "\n")
    else:
        lines = [describe(summary) + "\n" for summary in snapshot.variables.values()]
        sys.stdout.write("".join(lines))
    return 0


def _parse_categories(text: str) -> list[str]:
    letters = [letter for letter in text.upper() if not letter.isspace() and letter != ","]
    if not letters or any(letter not in _CATEGORIES for letter in letters):
        raise SettingsError(f"--categories takes letters from {_CATEGORIES}, got {text!r}")
    return [letter for letter in _CATEGORIES if letter in letters]


async def _inspect(
    args: argparse.Namespace,
    names: list[str],
    categories: list[str],
    timeout: float,
    *,
    remote: bool,
) -> RuntimeSnapshot:
    if remote:
        attached = await attach_remote(args, timeout=timeout)
    else:
        attached = await KernelSession.attach(args.connection_file, timeout=timeout)
    async with attached as session:
        if session.state == "busy":
            raise KernelBusy("the kernel is running a cell; inspect again when it is idle")
        inventory = await session.inventory(timeout=timeout)
        unknown = [name for name in names if name not in inventory.names]
        if unknown:
            raise CraneError(f"not defined in the kernel: {', '.join(unknown)}")
        wanted = names or sorted(inventory.names)
        payload = {"names": wanted, "categories": categories}
        raw = await session.run_probe("summarise", payload, timeout=timeout)
    try:
        snapshot = msgspec.convert(raw, RuntimeSnapshot)
    except msgspec.ValidationError as exc:
        raise ProbeError(f"the probe's snapshot does not match the protocol: {exc}") from exc
    return _complete(snapshot, wanted, inventory)


def _complete(
    snapshot: RuntimeSnapshot, names: list[str], inventory: NameInventory
) -> RuntimeSnapshot:
    """Names the probe did not summarise still get their type from the inventory."""
    for name in names:
        if name not in snapshot.variables and name in inventory.names:
            snapshot.variables[name] = VariableSummary(name=name, type=inventory.names[name])
    snapshot.missing = [name for name in snapshot.missing if name not in snapshot.variables]
    return snapshot


def describe(summary: VariableSummary) -> str:
    """One human line: name, type, then shape / columns / dtype when known."""
    parts = [summary.name, summary.type]
    if summary.shape is not None:
        dims = ", ".join("?" if n is None else str(n) for n in summary.shape)
        parts.append(f"shape=({dims})")
    elif summary.length is not None:
        parts.append(f"len={summary.length}")
    if summary.columns is not None:
        shown = ", ".join(summary.columns[:8])
        more = (summary.columns_total or len(summary.columns)) - min(8, len(summary.columns))
        parts.append(f"columns=[{shown}{f', +{more}' if more > 0 else ''}]")
    if summary.dtype is not None:
        parts.append(f"dtype={summary.dtype}")
    if summary.device is not None:
        parts.append(f"device={summary.device}")
    if summary.fitted is not None:
        parts.append("fitted" if summary.fitted else "not fitted")
    if summary.signature is not None:
        parts.append(summary.signature)
    if summary.error is not None:
        parts.append(f"({summary.error})")
    return "  ".join(parts)
