"""`serve --tcp` / `--ws`: who may connect, how many at once, and one server per client.

A network port is reachable by every local user and every web page the user opens, and a
crane server runs code-reading probes inside the user's kernels. So by default a client
must show a token (generated and printed once on stderr, or read from --token-file):

- TCP: a first line ``crane-token <token>`` before the LSP framing, or the initialize
  request's ``initializationOptions.token`` (any editor can send initialization options).
- WebSocket: a ``?token=`` query or an ``Authorization: Bearer <token>`` header, and an
  Origin that is absent, loopback (``http://localhost:*``, ``http://127.0.0.1:*``),
  ``vscode-webview://`` or given with --allow-origin: a web page cannot connect.

At most `max_clients` clients are served at once (default 1); each gets its own server
and state, and the port stays open for the next client after one leaves (`exit` ends the
connection, not the process). A client refused after it sent initialize gets an error
answer, then the connection closes.
"""

from __future__ import annotations

import asyncio
import hmac
import inspect
import ipaddress
import json
import logging
import secrets
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from lsprotocol.types import EXIT, INITIALIZE

from crane_server.errors import SettingsError
from crane_server.llm.redact import remember_secret
from crane_server.lsp.transport import dispatch, read_loop

log = logging.getLogger(__name__)

TOKEN_LINE = b"crane-token "
UNAUTHORIZED = -32001  # a server-defined JSON-RPC error code
AUTH_TIMEOUT = 10.0  # seconds a new connection has to send its first message
MAX_FIRST_MESSAGE = 1024 * 1024
MAX_HEADER_LINES = 32
MAX_PENDING = 16  # connections not yet past the token check
LOOPBACK_NAMES = ("localhost", "localhost.localdomain")
WEBVIEW_SCHEMES = ("vscode-webview", "vscode-file")


@dataclass
class NetworkOptions:
    """What the serve command's network flags say."""

    host: str
    port: int
    token: str | None  # None: --no-token
    max_clients: int = 1
    allow_origins: Sequence[str] = ()


@dataclass
class _Gate:
    """The token check and the count of connected clients, shared by every connection."""

    options: NetworkOptions
    active: int = 0
    pending: int = 0

    def token_ok(self, given: str | None) -> bool:
        expected = self.options.token
        if expected is None:
            return True
        return given is not None and hmac.compare_digest(given.encode(), expected.encode())

    def full(self) -> bool:
        return self.active >= self.options.max_clients


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1)."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, port: int, token: bool) -> str | None:
    """The loud warning for a non-loopback --host, or None."""
    if is_loopback(host):
        return None
    reach = "every network this machine is on" if host in ("0.0.0.0", "::", "") else host
    guard = (
        "the token is the only guard and travels unencrypted"
        if token
        else "and --no-token lets ANYONE who reaches it read your kernels"
    )
    return (
        f"crane-server: WARNING: --host {host} is not a loopback address: port {port} is open "
        f"to {reach}; {guard}. Use --host 127.0.0.1 (and an SSH tunnel) unless you mean it."
    )


def load_token(token_file: str | None, no_token: bool) -> tuple[str | None, bool]:
    """(token, generated): from --token-file, freshly generated, or None for --no-token."""
    if no_token:
        if token_file:
            raise SettingsError("--no-token and --token-file contradict each other")
        return None, False
    if token_file is None:
        return secrets.token_urlsafe(32), True
    try:
        token = Path(token_file).expanduser().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"cannot read --token-file {token_file}: {exc}") from exc
    if len(token) < 16 or any(c.isspace() for c in token):
        raise SettingsError(
            f"--token-file {token_file}: the token must be 16+ characters, no spaces"
        )
    return token, False


def origin_allowed(origin: str | None, extra: Sequence[str]) -> bool:
    """No Origin (not a browser), a loopback or VS Code webview origin, or an allowed one."""
    if origin is None or "*" in extra or origin in extra:
        return True
    parts = urlsplit(origin)
    if parts.scheme in WEBVIEW_SCHEMES:
        return True
    return parts.scheme in ("http", "https") and is_loopback(parts.hostname or "")


class _Connection:
    """One client's wire for the transport loop; `exit` closes this connection only."""

    def __init__(self, protocol: Any, on_exit: Callable[[], None]) -> None:
        self._protocol = protocol
        self._on_exit = on_exit

    def structure_message(self, data: dict[str, Any]) -> Any:
        return self._protocol.structure_message(data)

    def handle_message(self, message: Any) -> None:
        if getattr(message, "method", None) == EXIT:
            self._on_exit()
            return
        self._protocol.handle_message(message)

    def _send_data(self, data: Any) -> None:
        self._protocol._send_data(data)


class _StreamReader:
    """asyncio.StreamReader with the transport loop's end-of-input convention (b"")."""

    def __init__(self, inner: asyncio.StreamReader) -> None:
        self._inner = inner

    async def readline(self) -> bytes:
        return await self._inner.readline()

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._inner.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""


def _frame(payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _refusal(rid: Any, message: str) -> bytes:
    return _frame(
        {"jsonrpc": "2.0", "id": rid, "error": {"code": UNAUTHORIZED, "message": message}}
    )


async def _first_message(reader: asyncio.StreamReader) -> tuple[str | None, bytes | None]:
    """(token from a `crane-token` line, first LSP body): None where absent or malformed."""
    line = await reader.readline()
    token = None
    if line.startswith(TOKEN_LINE):
        token = line[len(TOKEN_LINE) :].strip().decode("utf-8", "replace")
        line = await reader.readline()
    length = None
    for _ in range(MAX_HEADER_LINES):
        if not line or not line.strip():
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            length = int(value.strip())
        line = await reader.readline()
    if not line or length is None or length > MAX_FIRST_MESSAGE:
        return token, None
    try:
        return token, await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        return token, None


def _initialize_token(body: bytes) -> tuple[Any, str | None, bytes] | None:
    """(request id, initializationOptions.token, body without it) of an initialize request."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("method") != INITIALIZE:
        return None
    params = data.get("params")
    options = params.get("initializationOptions") if isinstance(params, dict) else None
    token = None
    if isinstance(options, dict) and "token" in options:
        given = options.pop("token")
        token = given if isinstance(given, str) else None
        body = json.dumps(data).encode()
    return data.get("id"), token, body


Pump = Callable[[threading.Event, _Connection], Awaitable[None]]


async def _serve_one(
    make_server: Callable[[], tuple[Any, Any]], writer: Any, pump: Pump, *, framed: bool
) -> None:
    """Run one client's own server until the client exits, hangs up or sends `exit`."""
    server, service = make_server()
    stop = threading.Event()
    server._stop_event = stop
    server.protocol.set_writer(writer, include_headers=framed)

    closing: list[asyncio.Future[Any]] = []

    def end() -> None:
        stop.set()
        result = writer.close()
        if inspect.isawaitable(result):
            closing.append(asyncio.ensure_future(result))

    try:
        await pump(stop, _Connection(server.protocol, end))
    finally:
        try:
            await asyncio.gather(*closing, return_exceptions=True)
            await service.close_all()
        finally:
            server.shutdown()


async def serve_tcp(options: NetworkOptions, make_server: Callable[[], tuple[Any, Any]]) -> None:
    """Listen on TCP until interrupted; one server per authenticated client."""
    gate = _Gate(options)

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        if gate.pending >= MAX_PENDING:
            writer.close()
            return
        gate.pending += 1
        try:
            line_token, body = await asyncio.wait_for(_first_message(reader), AUTH_TIMEOUT)
        except (asyncio.TimeoutError, ValueError, ConnectionError):
            line_token, body = None, None
        finally:
            gate.pending -= 1
        initialize = None if body is None else _initialize_token(body)
        if initialize is None:
            log.warning("refused %s: the first message was not an initialize request", peer)
            writer.close()
            return
        rid, option_token, body = initialize
        reason = None
        if not gate.token_ok(line_token if line_token is not None else option_token):
            reason = (
                "crane: unauthorized: send the server's token as initializationOptions.token "
                "or as a first line 'crane-token <token>'"
            )
        elif gate.full():
            reason = f"crane: busy: {options.max_clients} client(s) already connected"
        if reason is not None:
            log.warning("refused %s: %s", peer, reason)
            writer.write(_refusal(rid, reason))
            await _drain_and_close(writer)
            return
        gate.active += 1
        log.info("client %s connected", peer)

        async def pump(stop: threading.Event, wire: _Connection) -> None:
            dispatch(wire, body)
            await read_loop(stop, _StreamReader(reader), wire)

        try:
            await _serve_one(make_server, writer, pump, framed=True)
        except Exception:
            log.exception("client %s: connection failed", peer)
        finally:
            gate.active -= 1
            writer.close()
            log.info("client %s left", peer)

    server = await asyncio.start_server(connection, options.host, options.port, limit=2**20)
    _announce("tcp", server)
    async with server:
        await server.serve_forever()


async def _drain_and_close(writer: asyncio.StreamWriter) -> None:
    try:
        await writer.drain()
    except ConnectionError:
        pass
    writer.close()


async def serve_ws(options: NetworkOptions, make_server: Callable[[], tuple[Any, Any]]) -> None:
    """Listen for WebSocket clients until interrupted; one server per authorized client."""
    try:
        from websockets.asyncio.server import ServerConnection, serve
        from websockets.exceptions import ConnectionClosed
        from websockets.http11 import Request, Response
    except ImportError as exc:
        raise SettingsError(
            "--ws needs the websockets package: pip install 'crane-server[ws]'"
        ) from exc
    gate = _Gate(options)

    def check(connection: ServerConnection, request: Request) -> Response | None:
        origin = request.headers.get("Origin")
        if not origin_allowed(origin, options.allow_origins):
            log.warning("refused a websocket from origin %r", origin)
            return connection.respond(HTTPStatus.FORBIDDEN, f"origin {origin} not allowed\n")
        query = parse_qs(urlsplit(request.path).query)
        given: str | None = query["token"][0] if query.get("token") else None
        bearer = request.headers.get("Authorization", "")
        if given is None and bearer.lower().startswith("bearer "):
            given = bearer[7:].strip()
        if not gate.token_ok(given):
            log.warning("refused a websocket without the right token")
            return connection.respond(HTTPStatus.UNAUTHORIZED, "unauthorized\n")
        if gate.full():
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "busy\n")
        return None

    async def connection(websocket: ServerConnection) -> None:
        if gate.full():  # two handshakes raced past the check
            await websocket.close(1013, "busy")
            return
        gate.active += 1

        async def pump(stop: threading.Event, wire: _Connection) -> None:
            try:
                async for message in websocket:
                    dispatch(wire, message)
                    if stop.is_set():
                        return
            except ConnectionClosed:
                return

        try:
            await _serve_one(make_server, _WebSocketWriter(websocket), pump, framed=False)
        except Exception:
            log.exception("websocket client failed")
        finally:
            gate.active -= 1

    async with serve(connection, options.host, options.port, process_request=check) as server:
        _announce("ws", server)
        await server.serve_forever()


class _WebSocketWriter:
    """pygls's writer interface over a websocket connection (text frames)."""

    def __init__(self, websocket: Any) -> None:
        self._websocket = websocket

    def write(self, data: bytes) -> Any:
        return self._websocket.send(data.decode("utf-8"))

    def close(self) -> Any:
        return self._websocket.close()


def _announce(kind: str, server: Any) -> None:
    for sock in server.sockets:
        host, port = sock.getsockname()[:2]
        print(f"crane-server: listening on {kind} {host}:{port}", file=sys.stderr, flush=True)


def start(
    kind: str,
    options: NetworkOptions,
    make_server: Callable[[], tuple[Any, Any]],
    *,
    show_token: bool,
) -> None:
    """Print the exposure warning and (once, when generated) the token; serve until stopped."""
    warning = exposure_warning(options.host, options.port, options.token is not None)
    if warning:
        print(warning, file=sys.stderr, flush=True)
        log.warning(warning)
    if options.token is not None:
        remember_secret(options.token)  # never in the log
        if show_token:
            print(f"crane-server: token: {options.token}", file=sys.stderr, flush=True)
    serve = serve_tcp if kind == "tcp" else serve_ws
    try:
        asyncio.run(serve(options, make_server))
    except KeyboardInterrupt:
        pass
