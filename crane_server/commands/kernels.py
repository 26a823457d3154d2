"""`crane-server kernels [--json] [--server URL]`: running kernels and their notebooks."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import msgspec

from crane_server.commands.remote_options import (
    add_server_arguments,
    option_headers,
    wants_server,
)
from crane_server.kernels.discovery import default_runtime_dir, discover_kernels
from crane_server.kernels.remote_server import RemoteKernel, ServerClient, ServerEndpoint
from crane_server.protocol.kernels import KernelRecord


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare this subcommand's arguments."""
    parser.add_argument("--json", action="store_true", help="print a JSON list of records")
    parser.add_argument(
        "--runtime-dir", type=Path, default=None, help="Jupyter runtime dir (default: Jupyter's)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds to wait for each kernel (default 1; with --server, for the server: 5)",
    )
    add_server_arguments(parser, kernel=False)


def run(args: argparse.Namespace) -> int:
    if wants_server(args, None):
        return _run_remote(args)
    runtime_dir: Path = args.runtime_dir or default_runtime_dir()
    records = asyncio.run(discover_kernels(runtime_dir, timeout=args.timeout or 1.0))
    support = dry_run_support()
    for record in records:
        if not record.stale:
            record.dry_run = support
    if args.json:
        sys.stdout.write(msgspec.json.encode(records).decode() + "\n")
    else:
        sys.stdout.write(render_table(records, runtime_dir))
    return 0


def dry_run_support() -> str:
    """Whether a twin can be sealed here, for the kernels on this machine."""
    from crane_server.probe.twin import seal

    reason = seal.seal_support()
    if reason is not None:
        return f"unavailable: {reason}"
    abi = seal.landlock_abi()
    return f"available (seccomp, Landlock ABI {abi})" if abi else "available (seccomp)"


def render_table(records: list[KernelRecord], runtime_dir: Path) -> str:
    """Live kernels as a table, then the stale and the bad files, one per line."""
    live = [record for record in records if not record.stale]
    stale = [record for record in records if record.stale and record.state != "bad"]
    bad = [record for record in records if record.state == "bad"]
    if not live:
        lines = [f"no running kernels in {runtime_dir}"]
    else:
        rows = [("KERNEL", "STATE", "PID", "NOTEBOOK", "CONNECTION FILE")]
        rows += [
            (
                record.kernel_id or "-",
                record.state,
                str(record.pid) if record.pid else "-",
                record.notebook_path or "-",
                record.connection_file,
            )
            for record in live
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
        lines = [
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1]
            for row in rows
        ]
    support = next((r.dry_run for r in live if r.dry_run), None)
    if support:
        lines.append(f"dry run: {support}")
    if stale:
        lines.append(f"stale connection files ({len(stale)}, no kernel answered):")
        lines += [f"  {record.connection_file}" for record in stale]
    if bad:
        lines.append(f"bad connection files ({len(bad)}, skipped):")
        lines += [f"  {_one_line(record.error or record.connection_file)}" for record in bad]
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _run_remote(args: argparse.Namespace) -> int:
    """The kernels of one Jupyter Server, from its REST API (nothing is sent to the kernels)."""
    endpoint = ServerEndpoint.parse(args.server, args.token, option_headers(args))
    timeout = args.timeout or 5.0

    async def listing() -> list[RemoteKernel]:
        async with ServerClient(endpoint, timeout=timeout) as client:
            return await client.kernels()

    records = asyncio.run(listing())
    if args.json:
        sys.stdout.write(msgspec.json.encode(records).decode() + "\n")
    else:
        sys.stdout.write(render_remote_table(records, endpoint.display_url))
    return 0


def render_remote_table(records: list[RemoteKernel], server_url: str) -> str:
    """A server's kernels: id, kernel name, state, notebook."""
    if not records:
        return f"no kernels on {server_url}\n"
    rows = [("KERNEL", "NAME", "STATE", "NOTEBOOK")]
    rows += [(r.kernel_id, r.name, r.state, r.notebook_path or "-") for r in records]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1]
        for row in rows
    ]
    return f"kernels on {server_url}\n" + "\n".join(lines) + "\n"
