"""A JSON-RPC base-protocol reader that bounds, resyncs and answers parse errors.

`Deframer` cuts the byte stream into messages. A header block is `Name: value` lines ended by
a blank line, with exactly one `Content-Length` of 1 to 18 ASCII digits. Anything else (a bad
value, a missing colon, a duplicate, a run-on line, a block over `MAX_HEADER_BLOCK`) is dropped
unanswered and the reader scans on for the next `Content-Length:`, wherever it starts, so the
message after the garbage is read as usual. A body that is not JSON gets a ParseError (id null)
and its bytes are scanned again, so a message hidden in a truncated or over-long body is still
found. While a body arrives, a well-formed `Content-Length` line in it proves that it is not
JSON (`_NEXT_HEADER`), so a too-large `Content-Length` never makes the reader wait for bytes that
belong to the next message.
"""

from __future__ import annotations

import asyncio
import enum
import json
import logging
import re
import sys
import threading
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, BinaryIO, NamedTuple, Protocol, runtime_checkable

from lsprotocol.types import EXIT, INITIALIZE, ResponseError
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

logger = logging.getLogger(__name__)

MAX_CONTENT_LENGTH = 64 * 1024 * 1024
MAX_HEADER_BLOCK = 16 * 1024
_CHUNK = 1024 * 1024
_STDIN_READ = 64 * 1024
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002

_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_CONTROL = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
_DIGITS = re.compile(rb"[0-9]{1,18}")
_RESYNC = re.compile(rb"content-length:", re.IGNORECASE)
_RESYNC_KEEP = len(b"content-length:") - 1
# A well-formed Content-Length line. JSON allows neither a letter outside a string nor a raw
# newline inside one, and the line has no quote to end a string: a body holding it is not JSON.
_NEXT_HEADER = re.compile(rb"content-length:[ \t]{0,64}[0-9]{1,18}[ \t]{0,64}\r?\n")
_NEXT_HEADER_SPAN = 15 + 64 + 18 + 64 + 2


class _Reader(Protocol):
    """A line-and-count reader (asyncio.StreamReader-like; b"" at end of input)."""

    async def readline(self) -> bytes: ...

    async def readexactly(self, n: int) -> bytes: ...


@runtime_checkable
class ChunkSource(Protocol):
    """A reader of whatever bytes have arrived, at most about `wanted` if it is > 0."""

    async def read_chunk(self, wanted: int) -> bytes: ...


class _Wire(Protocol):
    """What the loop hands messages to (pygls's JsonRPCProtocol)."""

    def structure_message(self, data: dict[str, Any]) -> Any: ...

    def handle_message(self, message: Any) -> None: ...

    def _send_data(self, data: Any) -> None: ...


@dataclass(frozen=True)
class Message:
    """One body that decoded as JSON."""

    data: Any


@dataclass(frozen=True)
class Refusal:
    """An error to answer with id null: no id of the message can be trusted."""

    code: int
    message: str


Frame = Message | Refusal


class _Verdict(enum.Enum):
    MORE = "more bytes are needed"
    BAD = "malformed"


class _Header(NamedTuple):
    length: int
    end: int  # index in the buffer just past the blank line


class _Mode(enum.Enum):
    HEADER = "reading a header block"
    SCAN = "scanning for the next Content-Length"
    BODY = "reading a body"
    SKIP = "skipping an oversized body"


def _header_line(line: bytes) -> tuple[bytes, bytes] | None:
    """(lower-case name, value) of a `Name: value` line, or None if it is not one."""
    name, sep, value = line.partition(b":")
    if not sep or _TOKEN.fullmatch(name) is None or _CONTROL.search(value) is not None:
        return None
    return name.lower(), value.strip(b" \t")


def _content_length(value: bytes) -> int | None:
    """A Content-Length value: 1 to 18 ASCII digits, nothing else."""
    return int(value) if _DIGITS.fullmatch(value) else None


def _read_header(buf: bytearray, start: int, limit: int) -> _Header | _Verdict:
    """Parse the header block at buf[start:], judging each line as soon as it is complete."""
    length: int | None = None
    pos = start
    while True:
        newline = buf.find(b"\n", pos, start + limit)
        if newline < 0:
            return _Verdict.MORE if len(buf) - start < limit else _Verdict.BAD
        line = bytes(buf[pos:newline]).removesuffix(b"\r")
        pos = newline + 1
        if not line:
            return _Verdict.BAD if length is None else _Header(length, pos)
        parsed = _header_line(line)
        if parsed is None or _RESYNC.search(line, 1) is not None:
            return _Verdict.BAD  # not a header, or a next message's header run into this one
        if parsed[0] == b"content-length":
            if length is not None:
                return _Verdict.BAD  # a duplicate: which one frames the body is a guess
            length = _content_length(parsed[1])
            if length is None:
                return _Verdict.BAD


def _next_header(buf: bytearray, start: int, end: int) -> int | None:
    """Index of the first well-formed Content-Length line in buf[start:end], if any."""
    window = bytes(buf[start:end]).lower()  # lower() and find() beat an re.I search 5 to 1
    at = window.find(b"content-length:")
    while at >= 0:
        if _NEXT_HEADER.match(window, at):
            return start + at
        at = window.find(b"content-length:", at + 1)
    return None


def decode(body: bytes | str) -> Message | Refusal:
    """A JSON body as a Message, else a ParseError Refusal."""
    try:
        return Message(json.loads(body))
    except Exception as exc:  # ValueError, RecursionError on deep nesting, ...
        logger.warning("parse error: %s", str(exc)[:200])
        return Refusal(PARSE_ERROR, "Parse error")


class Deframer:
    """Cuts a byte stream into Frames; never stalls on garbage, never swallows a next message.

    Positions are offsets in the whole stream; the buffer holds only what is still undecided
    (one header block up to `max_header`, one body up to `max_body`, or a few bytes while
    scanning or skipping).
    """

    def __init__(
        self, max_body: int = MAX_CONTENT_LENGTH, max_header: int = MAX_HEADER_BLOCK
    ) -> None:
        self._max_body = max_body
        self._max_header = max_header
        self._buf = bytearray()
        self._base = 0  # stream offset of self._buf[0]
        self._mode = _Mode.HEADER
        self._at = 0  # start of the header block, the scan, or the body
        self._end = 0  # end of the body
        self._searched = 0  # how far the arriving body was searched for a next header

    def wanted(self) -> int:
        """Body bytes still to come (0 while between messages)."""
        if self._mode in (_Mode.BODY, _Mode.SKIP):
            return max(self._end - self._base - len(self._buf), 0)
        return 0

    def buffered(self) -> int:
        """Bytes held (for tests of the memory bound)."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[Frame]:
        """Take the next bytes of the stream; return the frames they complete."""
        self._buf += data
        frames: list[Frame] = []
        while self._step(frames):
            pass
        self._compact()
        return frames

    def _step(self, frames: list[Frame]) -> bool:
        """Advance by one decision; False when more bytes are needed."""
        if self._mode is _Mode.HEADER:
            return self._header(frames)
        if self._mode is _Mode.SCAN:
            return self._scan()
        if self._mode is _Mode.BODY:
            return self._body(frames)
        return self._skip()

    def _header(self, frames: list[Frame]) -> bool:
        verdict = _read_header(self._buf, self._at - self._base, self._max_header)
        if verdict is _Verdict.MORE:
            return False
        if verdict is _Verdict.BAD:
            self._resync(self._at + 1, "a malformed header block")
            return True
        self._at = self._searched = self._base + verdict.end
        self._end = self._at + verdict.length
        self._mode = _Mode.BODY
        if verdict.length > self._max_body:
            logger.warning("skipping a %d-byte body (limit %d)", verdict.length, self._max_body)
            limit = f"message of {verdict.length} bytes exceeds {self._max_body}"
            frames.append(Refusal(INVALID_REQUEST, limit))
            self._mode = _Mode.SKIP
        return True

    def _resync(self, at: int, what: str) -> None:
        logger.warning("dropped %s; scanning for the next Content-Length", what)
        self._mode, self._at = _Mode.SCAN, at

    def _scan(self) -> bool:
        found = _RESYNC.search(self._buf, self._at - self._base)
        if found is None:
            self._at = max(self._at, self._base + len(self._buf) - _RESYNC_KEEP)
            return False
        self._mode, self._at = _Mode.HEADER, self._base + found.start()
        return True

    def _arrived(self) -> tuple[int, int | None]:
        """(stream offset the body has arrived to, offset of a next header line in it)."""
        have = min(self._base + len(self._buf), self._end)
        start = max(self._at, self._searched - _NEXT_HEADER_SPAN)
        found = _next_header(self._buf, start - self._base, have - self._base)
        self._searched = have
        return have, None if found is None else self._base + found

    def _body(self, frames: list[Frame]) -> bool:
        if self._base + len(self._buf) < self._end:
            _, header = self._arrived()
            if header is None:
                return False
            frames.append(Refusal(PARSE_ERROR, "Parse error"))
            self._resync(header, "a body cut short by the next message")
            return True
        frame = decode(bytes(self._buf[self._at - self._base : self._end - self._base]))
        frames.append(frame)
        if isinstance(frame, Refusal):
            self._resync(self._at, "a body that is not JSON")
        else:
            self._mode, self._at = _Mode.HEADER, self._end
        return True

    def _skip(self) -> bool:
        have, header = self._arrived()
        if header is not None:
            self._resync(header, "an oversized body cut short by the next message")
            return True
        if have < self._end:
            return False
        self._mode, self._at = _Mode.HEADER, self._end
        return True

    def _compact(self) -> None:
        keep = self._at
        if self._mode is _Mode.SKIP:
            keep = max(self._at, self._searched - _NEXT_HEADER_SPAN)
        del self._buf[: keep - self._base]
        self._base = keep


def _error(wire: _Wire, code: int, message: str) -> None:
    """Send a JSON-RPC error response with a null id."""
    wire._send_data({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})


def _reply_error(wire: _Wire, rid: Any, code: int, message: str) -> None:
    """Send a JSON-RPC error response to request `rid`."""
    error = {"code": code, "message": message}
    wire._send_data({"jsonrpc": "2.0", "id": rid, "error": error})


def _valid_id(value: Any) -> bool:
    """A JSON-RPC id: a string or an integer (not a bool, not a float such as 1.5 or 1.0)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def dispatch(wire: _Wire, body: bytes | str) -> None:
    """Decode one message body and hand it on, answering every request that cannot be served."""
    deliver(wire, decode(body))


def deliver(wire: _Wire, frame: Frame) -> None:
    """Answer a Refusal; check a Message's JSON-RPC shape and hand it to the wire."""
    if isinstance(frame, Refusal):
        _error(wire, frame.code, frame.message)
        return
    data = frame.data
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
    _hand_on(wire, data, has_id and method is not None)


def _hand_on(wire: _Wire, data: dict[str, Any], is_request: bool) -> None:
    """Structure and handle a well-shaped message; a request that fails is answered."""
    method, rid = data.get("method"), data.get("id")
    try:
        message = wire.structure_message(data)
    except Exception as exc:
        logger.warning("cannot decode %s: %s", method, exc)
        if is_request:
            _reply_error(wire, rid, INVALID_PARAMS, f"Invalid params for {method}")
        return
    try:
        wire.handle_message(message)
    except Exception:
        logger.exception("unable to handle message")
        if is_request:
            _reply_error(wire, rid, INTERNAL_ERROR, "Internal error")


class _LineChunks:
    """A ChunkSource over a readline/readexactly reader (a line between messages, else body)."""

    def __init__(self, inner: _Reader) -> None:
        self._inner = inner

    async def read_chunk(self, wanted: int) -> bytes:
        """The rest of a body in bounded pieces, or one line."""
        if wanted > 0:
            return await self._inner.readexactly(min(wanted, _CHUNK))
        try:
            return await self._inner.readline()
        except ValueError:  # asyncio's line limit: the line is gone; let the Deframer resync
            return b"\x00"


class StdinChunks:
    """A ChunkSource over a binary stream: whatever one read returns, from a worker thread."""

    def __init__(self, stream: BinaryIO, executor: Executor | None = None) -> None:
        self._read = getattr(stream, "read1", stream.read)
        self._executor = executor

    async def read_chunk(self, wanted: int) -> bytes:
        """Up to _STDIN_READ bytes, as soon as any have arrived."""
        loop = asyncio.get_running_loop()
        return bytes(await loop.run_in_executor(self._executor, self._read, _STDIN_READ))


async def read_loop(stop: threading.Event, reader: _Reader | ChunkSource, wire: _Wire) -> None:
    """Read framed messages until end of input; never dies on a bad frame."""
    source = reader if isinstance(reader, ChunkSource) else _LineChunks(reader)
    frames = Deframer()
    while not stop.is_set():
        chunk = await source.read_chunk(frames.wanted())
        if not chunk:
            return
        for frame in frames.feed(chunk):
            deliver(wire, frame)
            if stop.is_set():
                return


def serve_stdio(server: Any, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Run the server on stdin/stdout with the hardened reader."""
    server._stop_event = stop = threading.Event()
    reader = StdinChunks(stdin or sys.stdin.buffer, server.thread_pool)
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
