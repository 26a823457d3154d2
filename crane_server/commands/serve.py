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
    transport.add_argument("--tcp", action="store_true", help="listen on a TCP port")
    transport.add_argument("--ws", action="store_true", help="listen on a WebSocket port")
    network = parser.add_argument_group("--tcp/--ws (see docs/language-server.md)")
    network.add_argument(
        "--host", default=DEFAULT_HOST, help="address to listen on (default 127.0.0.1)"
    )
    network.add_argument("--port", type=int, default=None, help="port (0: any free port)")
    network.add_argument(
        "--token-file",
        default=None,
        help="read the client token from this file (default: generate one, print it on stderr)",
    )
    network.add_argument(
        "--no-token", action="store_true", help="accept clients without a token (not advised)"
    )
    network.add_argument(
        "--max-clients", type=int, default=1, help="clients served at once (default 1)"
    )
    network.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="--ws: also accept this browser Origin (repeatable; * for any)",
    )
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
    if args.tcp or args.ws:
        return _run_network(args)
    _configure_logging(args.log_file, args.log_level)
    from crane_server.lsp.server import create_server
    from crane_server.lsp.transport import serve_stdio

    server, _ = create_server()
    serve_stdio(server)
    return 0


def _run_network(args: argparse.Namespace) -> int:
    if args.port is None or not 0 <= args.port <= 65535:
        raise SettingsError("--tcp and --ws need --port (0 to 65535)")
    if args.max_clients < 1:
        raise SettingsError("--max-clients must be 1 or more")
    from crane_server.lsp import network
    from crane_server.lsp.server import create_server

    token, generated = network.load_token(args.token_file, args.no_token)
    _configure_logging(args.log_file, args.log_level)
    options = network.NetworkOptions(
        host=args.host,
        port=args.port,
        token=token,
        max_clients=args.max_clients,
        allow_origins=tuple(args.allow_origin),
    )
    network.start("tcp" if args.tcp else "ws", options, create_server, show_token=generated)
    return 0
