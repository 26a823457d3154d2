"""`crane-server serve` (also the default): the language server."""

from __future__ import annotations

import argparse
import logging
import sys

from crane_server.errors import SettingsError
from crane_server.llm.redact import RedactingFilter

DEFAULT_HOST = "127.0.0.1"


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare this subcommand's arguments."""
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument(
        "--stdio", action="store_true", help="talk LSP over stdin/stdout (default)"
    )
    transport.add_argument("--tcp", action="store_true", help="listen for one client on a TCP port")
    transport.add_argument("--ws", action="store_true", help="listen on a WebSocket port")
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help="address for --tcp/--ws (default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=None, help="port for --tcp/--ws")
    parser.add_argument("--log-file", default=None, help="write the server's log to this file")
    parser.add_argument(
        "--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    parser.add_argument("--clientProcessId", default=None, help=argparse.SUPPRESS)


def _configure_logging(log_file: str | None, level: str) -> None:
    handler: logging.Handler
    handler = (
        logging.FileHandler(log_file, encoding="utf-8")
        if log_file
        else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())  # an endpoint may echo the API key into a message
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)


def run(args: argparse.Namespace) -> int:
    if (args.tcp or args.ws) and args.port is None:
        raise SettingsError("--tcp and --ws need --port")
    _configure_logging(args.log_file, args.log_level)
    from crane_server.lsp.server import create_server

    server, _ = create_server()
    if args.tcp:
        server.start_tcp(args.host, args.port)
    elif args.ws:
        server.start_ws(args.host, args.port)
    else:
        from crane_server.lsp.transport import serve_stdio

        serve_stdio(server)
    return 0
