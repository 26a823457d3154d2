"""A JSON-RPC base-protocol reader that bounds, resyncs and answers parse errors."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from typing import Any, BinaryIO, Protocol

from lsprotocol.types import EXIT, INITIALIZE, ResponseError
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

logger = logging.getLogger(__name__)

MAX_CONTENT_LENGTH = 64 * 1024 * 1024
_CHUNK = 1024 * 1024
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002


class _Reader(Protocol):
    """What the loop reads from."""

    async def readline(self) -> bytes: ...

    async def readexactly(self, n: int) -> bytes: ...


class _Wire(Protocol):
    """What the loop hands messages to (pygls's JsonRPCProtocol)."""

    def structure_message(self, data: dict[str, Any]) -> Any: ...

    def handle_message(self, message: Any) -> None: ...

    def _send_data(self, data: Any) -> None: ...


def _content_length(header: bytes) -> int | None:
    """The value of a Content-Length header line, or None if it is not a valid one."""
    name, sep, value = header.partition(b":")
    if not sep or name.strip().lower() != b"content-length":
        return None
    text = value.strip()
    if not text.isdigit() or len(text) > 18:
        return -1
    return int(text)


def _error(wire: _Wire, code: int, message: str) -> None:
    """Send a JSON-RPC error response with a null id."""
    wire._send_data({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})


async def _skip(reader: _Reader, n: int) -> bool:
    """Discard n body bytes in bounded chunks; False at end of input."""
    while n > 0:
        chunk = await reader.readexactly(min(n, _CHUNK))
        if not chunk:
            return False
        n -= len(chunk)
    return True


async def read_loop(stop: threading.Event, reader: _Reader, wire: _Wire) -> None:
    """Read framed messages until end of input; never dies on a bad frame."""
    length: int | None = None
    bad_header = False
    while not stop.is_set():
        header = await reader.readline()
        if not header:
            return
        if header.strip():
            value = _content_length(header)
            if value is not None:
                if value < 0:
                    bad_header = True
                    length = None
                else:
                    length = value
            elif b":" not in header:
                bad_header = True
            continue
        # A blank line ends the header block.
        if length is None:
            if bad_header:
                logger.warning("dropped a message with a missing or invalid Content-Length")
                _error(wire, INVALID_REQUEST, "missing or invalid Content-Length header")
            bad_header = False
            continue
        size, length, bad_header = length, None, False
        if size > MAX_CONTENT_LENGTH:
            logger.warning("skipping a %d-byte message (limit %d)", size, MAX_CONTENT_LENGTH)
            _error(wire, INVALID_REQUEST, f"message of {size} bytes exceeds {MAX_CONTENT_LENGTH}")
            if not await _skip(reader, size):
                return
            continue
        body = await reader.readexactly(size) if size else b""
        if size and not body:
            return
        dispatch(wire, body)


def _valid_id(value: Any) -> bool:
    """A JSON-RPC id: a string or an integer (not a bool)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def dispatch(wire: _Wire, body: bytes | str) -> None:
    """Decode one message body and hand it on, answering every request that cannot be served."""
    try:
        data = json.loads(body)
    except Exception as exc:
        logger.warning("parse error: %s", exc)
        _error(wire, PARSE_ERROR, "Parse error")
        return
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        logger.warning("invalid request: not a JSON-RPC 2.0 object")
        _error(wire, INVALID_REQUEST, "Invalid Request")
        return
    has_id = "id" in data
    rid = data.get("id")
    if has_id and rid is not None and not _valid_id(rid):
        logger.warning("invalid request id %r", rid)
        _error(wire, INVALID_REQUEST, "Invalid Request: bad id")
        return
    method = data.get("method")
    if "method" in data and not isinstance(method, str):
        logger.warning("invalid request: method is not a string")
        _reply_error(wire, rid if has_id else None, INVALID_REQUEST, "Invalid Request: bad method")
        return
    if "method" not in data and not has_id:
        _error(wire, INVALID_REQUEST, "Invalid Request")
        return
    try:
        message = wire.structure_message(data)
    except Exception as exc:
        logger.warning("cannot decode %s: %s", method, exc)
        if has_id and method is not None:
            _reply_error(wire, rid, INVALID_PARAMS, f"Invalid params for {method}")
        return
    try:
        wire.handle_message(message)
    except Exception:
        logger.exception("unable to handle message")
        if has_id and method is not None:
            _reply_error(wire, rid, INTERNAL_ERROR, "Internal error")


def _reply_error(wire: _Wire, rid: Any, code: int, message: str) -> None:
    """Send a JSON-RPC error response to request `rid`."""
    error = {"code": code, "message": message}
    wire._send_data({"jsonrpc": "2.0", "id": rid, "error": error})


class _ExactReader:
    """Make StdinAsyncReader.readexactly loop until n bytes or end of input."""

    def __init__(self, inner: StdinAsyncReader) -> None:
        self._inner = inner

    async def readline(self) -> bytes:
        """One header line."""
        return await self._inner.readline()

    async def readexactly(self, n: int) -> bytes:
        """Exactly n bytes, or what there was before end of input."""
        return bytes(await self._inner.readexactly(n))


def serve_stdio(server: Any, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Run the server on stdin/stdout with the hardened reader."""
    server._stop_event = stop = threading.Event()
    reader = _ExactReader(StdinAsyncReader(stdin or sys.stdin.buffer, server.thread_pool))
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    try:
        asyncio.run(read_loop(stop, reader, server.protocol))
    except BrokenPipeError:
        logger.error("connection to the client is lost; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


class CraneProtocol(LanguageServerProtocol):
    """pygls's protocol with the LSP lifecycle rules and no tracebacks on the wire."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.crane_initialized = False

    def handle_message(self, message: Any) -> None:
        """Refuse requests before initialize and after shutdown; then dispatch."""
        method = getattr(message, "method", None)
        is_request = method is not None and hasattr(message, "id")
        if method == EXIT:
            super().handle_message(message)
            return
        if self._shutdown:
            if is_request:
                _reply_error(self, message.id, INVALID_REQUEST, "server is shut down")
            return
        if not self.crane_initialized and method is not None and method != INITIALIZE:
            if is_request:
                _reply_error(self, message.id, SERVER_NOT_INITIALIZED, "server not initialized")
            return
        if method == INITIALIZE:
            self.crane_initialized = True
        super().handle_message(message)

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        """Send a response; any error detail (a traceback) goes to the log, not the wire."""
        if error is not None and getattr(error, "data", None) is not None:
            logger.warning("request %r failed: %s %s", msg_id, error.message, error.data)
            error = ResponseError(code=error.code, message=error.message)
        super()._send_response(msg_id, result, error)


class CraneLanguageServer(LanguageServer):
    """LanguageServer whose out-of-band errors are logged, never popped up."""

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log a server error; protocol errors are not shown to the user."""
        logger.warning("server error (%s): %s", getattr(source, "__name__", source), error)
