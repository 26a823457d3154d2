"""`--server URL --kernel ID [--token T]`: the options that point a command at a remote kernel.

The token comes from --token, a `?token=` in the URL, or CRANE_JUPYTER_TOKEN (in that
order); it is sent only in the Authorization header and never printed. `--header 'Name:
value'` (or CRANE_JUPYTER_HEADERS) adds headers, e.g. `Authorization: Bearer ...`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from crane_server.errors import SettingsError
from crane_server.kernels.remote_headers import HEADERS_ENV, Headers, headers_from_options
from crane_server.kernels.remote_server import TOKEN_ENV
from crane_server.kernels.session import KernelSession


def add_server_arguments(parser: argparse.ArgumentParser, *, kernel: bool = True) -> None:
    """--server, --token, --ws-protocol (and --kernel when the command needs one kernel)."""
    parser.add_argument(
        "--server", metavar="URL", help="a Jupyter Server (http[s]://host:port[/base]/)"
    )
    if kernel:
        parser.add_argument("--kernel", metavar="ID", help="with --server: the kernel's id")
    parser.add_argument(
        "--token",
        default=None,
        help=f"with --server: the server's token (better: the {TOKEN_ENV} environment variable)",
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help=(
            "with --server: an extra HTTP header, e.g. 'Authorization: Bearer ...' "
            f"(repeatable; better: a JSON object in {HEADERS_ENV})"
        ),
    )
    if kernel:
        parser.add_argument(
            "--ws-protocol",
            choices=("v1", "json"),
            default="v1",
            help="with --server: the websocket framing (default v1, JSON if the server declines)",
        )


def wants_server(args: argparse.Namespace, connection_file: Path | str | None) -> bool:
    """True for --server; SettingsError for --kernel/--token without it, or both transports."""
    if args.server is None:
        if getattr(args, "kernel", None) or args.token or args.header:
            raise SettingsError("--kernel, --token and --header go with --server URL")
        return False
    if connection_file:
        raise SettingsError("give --connection-file or --server, not both")
    if hasattr(args, "kernel") and not args.kernel:
        raise SettingsError("--server needs --kernel ID (crane-server kernels --server URL)")
    return True


async def attach_remote(args: argparse.Namespace, *, timeout: float) -> KernelSession:
    """The session of --kernel on --server."""
    return await KernelSession.attach_remote(
        args.server,
        args.kernel,
        token=args.token,
        timeout=timeout,
        protocol=args.ws_protocol,
        headers=option_headers(args),
    )


def option_headers(args: argparse.Namespace) -> Headers | None:
    """The --header options (None when there are none: the environment's or config's)."""
    return headers_from_options(args.header) if args.header else None
