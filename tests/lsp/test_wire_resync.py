"""After any malformed frame the stdio reader resyncs: the next valid request is always answered.

The real server runs over stdio (`Wire` of test_wire_fuzz); `Deframer` is also driven in
process, where every split of the stream into reads can be tried.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from crane_server.lsp.transport import Deframer, Message, Refusal
from tests.lsp.test_wire_fuzz import Wire

INIT: dict[str, Any] = {"processId": None, "rootUri": None, "capabilities": {}}
ANSWER_S = 10.0
GARBAGE_BODY = json.dumps(
    {"jsonrpc": "2.0", "id": 4242, "method": "workspace/symbol", "params": {"query": ""}}
).encode()


def framed(payload: Any) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(rid: int) -> bytes:
    return framed({"jsonrpc": "2.0", "id": rid, "method": "workspace/symbol", "params": {}})


def with_value(value: bytes) -> bytes:
    return b"Content-Length: " + value + b"\r\n\r\n" + GARBAGE_BODY


# Each is sent as is, then a valid request: that request must be answered.
BAD_FRAMES: dict[str, bytes] = {
    "negative": with_value(b"-5"),
    "letters": with_value(b"abc"),
    "zero": with_value(b"0"),
    "empty": with_value(b""),
    "two numbers": with_value(b"12 34"),
    "plus sign": with_value(b"+5"),
    "decimal": with_value(b"5.0"),
    "hex": with_value(b"0x20"),
    "twenty digits": with_value(b"9" * 20),
    "non-ASCII digit": with_value("５".encode()),
    "non-ASCII letters": with_value("élan".encode()),
    "NUL in value": with_value(b"5\x00"),
    "too short": with_value(b"7"),
    "too long": with_value(b"900"),
    "missing colon": b"Content-Length 5\r\n\r\n" + GARBAGE_BODY,
    "space before colon": b"Content-Length : 5\r\n\r\n" + GARBAGE_BODY,
    "no Content-Length": b"Content-Type: application/json\r\n\r\n" + GARBAGE_BODY,
    "duplicated, different": b"Content-Length: 5\r\nContent-Length: 77\r\n\r\n" + GARBAGE_BODY,
    "duplicated, same": b"Content-Length: 5\r\nContent-Length: 5\r\n\r\n" + GARBAGE_BODY,
    "header without body": b"Content-Length: 60\r\n\r\n",
    "header without blank line": b"Content-Length: 60\r\n",
    "header cut mid-line": b"Content-Length: 6",
    "unknown header cut mid-line": b"X-Trace: abc",
    "truncated body": b"Content-Length: %d\r\n\r\n" % len(GARBAGE_BODY) + GARBAGE_BODY[:30],
    "truncated in a string": b'Content-Length: 400\r\n\r\n{"jsonrpc": "2.0", "method": "x", "p": "ab',
    "truncated after an escape": b'Content-Length: 400\r\n\r\n{"p": "ab\\',
    "complete JSON, length too long": b"Content-Length: 500\r\n\r\n" + GARBAGE_BODY,
    "over the body cap, cut short": b"Content-Length: 99999999999\r\n\r\n{}",
    "header line over the cap": b"X-Long: " + b"a" * 40_000 + b"\r\n",
    "bare CRLF": b"\r\n",
    "bare LF": b"\n",
    "random bytes": bytes(random.Random(5).randrange(256) for _ in range(300)),
    "body then no header": GARBAGE_BODY,
}


class IndexedWire(Wire):
    """Wire that indexes answers by id, so that waiting costs O(new messages)."""

    def __init__(self) -> None:
        self.answers: dict[Any, dict[str, Any]] = {}
        self.null_errors: list[int] = []
        self._indexed = 0
        super().__init__()

    def _index(self) -> None:
        for message in self.messages[self._indexed :]:
            if "result" not in message and "error" not in message:
                continue  # a request or notification from the server
            if message.get("id") is None:
                self.null_errors.append(message.get("error", {}).get("code"))
            else:
                self.answers[message["id"]] = message
        self._indexed = len(self.messages)

    def answer(self, rid: Any, timeout: float = ANSWER_S) -> dict[str, Any] | None:
        """The answer to request `rid`, or None if none came within `timeout`."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                self._index()
                if rid in self.answers:
                    return self.answers[rid]
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def nulls(self) -> list[int]:
        with self.cond:
            self._index()
            return list(self.null_errors)


@pytest.fixture(scope="module")
def server() -> Iterator[IndexedWire]:
    w = IndexedWire()
    w.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
    assert w.answer(1) is not None
    w.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    yield w
    w.close()


_NEXT_ID = iter(range(10_000, 10**9))


@pytest.mark.parametrize("garbage", list(BAD_FRAMES.values()), ids=list(BAD_FRAMES))
def test_valid_request_after_a_malformed_frame_is_answered(
    server: IndexedWire, garbage: bytes
) -> None:
    rid = next(_NEXT_ID)
    server.raw(garbage + request(rid))
    reply = server.answer(rid)
    assert reply is not None, f"request {rid} after {garbage[:60]!r} was never answered"
    assert server.proc.poll() is None


def test_the_body_of_a_frame_with_a_bad_header_is_not_served(server: IndexedWire) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 777, "method": "workspace/symbol"}).encode()
    rid = next(_NEXT_ID)
    server.raw(b"Content-Length: -5\r\n\r\n" + body + request(rid))
    assert server.answer(rid) is not None
    assert 777 not in server.answers


BAD_IDS = [b"1.5", b"1.0", b"-0.0", b"1e400", b"true", b"[1]", b'{"a": 1}']


@pytest.mark.parametrize("bad_id", BAD_IDS, ids=[i.decode() for i in BAD_IDS])
@pytest.mark.parametrize("after", [b"", b"Content-Length: -5\r\n\r\n{}"], ids=["alone", "garbage"])
def test_invalid_id_gets_invalid_request_with_null_id(
    server: IndexedWire, bad_id: bytes, after: bytes
) -> None:
    before = server.nulls()
    body = b'{"jsonrpc": "2.0", "id": ' + bad_id + b', "method": "workspace/symbol"}'
    rid = next(_NEXT_ID)
    server.raw(after + b"Content-Length: %d\r\n\r\n" % len(body) + body + request(rid))
    assert server.answer(rid) is not None  # the null-id error is sent before it
    assert server.nulls()[len(before) :] == [-32600]


# ---- the Deframer in process: every split of the stream, memory bounds ----


def frames_of(data: bytes, sizes: list[int], deframer: Deframer | None = None) -> list[Any]:
    deframer = deframer or Deframer()
    out: list[Any] = []
    at, turn = 0, 0
    while at < len(data):
        size = sizes[turn % len(sizes)]
        out += deframer.feed(data[at : at + size])
        at, turn = at + size, turn + 1
    return out


def ids_of(frames: list[Any]) -> list[Any]:
    return [f.data.get("id") for f in frames if isinstance(f, Message) and isinstance(f.data, dict)]


@pytest.mark.parametrize("garbage", list(BAD_FRAMES.values()), ids=list(BAD_FRAMES))
@pytest.mark.parametrize("sizes", [[1 << 20], [1], [7, 1, 3]], ids=["whole", "bytes", "mixed"])
def test_deframer_finds_the_next_message_whatever_the_reads(
    garbage: bytes, sizes: list[int]
) -> None:
    out = frames_of(garbage + request(5) + request(6), sizes)
    assert ids_of(out)[-2:] == [5, 6]


def test_deframer_answers_a_bad_body_with_a_parse_error_only() -> None:
    out = frames_of(b"Content-Length: 5\r\n\r\n{bad}" + request(8), [1 << 20])
    assert out[0] == Refusal(-32700, "Parse error")
    assert ids_of(out) == [8]


def test_deframer_skips_an_oversized_body_in_bounded_memory() -> None:
    deframer = Deframer(max_body=1000, max_header=256)
    first = deframer.feed(b"Content-Length: 50000000\r\n\r\n")
    assert first == [Refusal(-32600, "message of 50000000 bytes exceeds 1000")]
    peak = 0
    for _ in range(50):
        assert deframer.feed(b"x" * 1_000_000) == []
        peak = max(peak, deframer.buffered())
    assert peak < 1000
    assert ids_of(deframer.feed(request(9))) == [9]


def test_deframer_drops_an_endless_header_in_bounded_memory() -> None:
    deframer = Deframer(max_header=4096)
    deframer.feed(b"X-Endless: ")
    peak = 0
    for _ in range(100):
        deframer.feed(b"y" * 100_000)
        peak = max(peak, deframer.buffered())
    assert peak < 100_000 + 4096
    assert ids_of(deframer.feed(b"\r\n" + request(10))) == [10]


def random_garbage(rng: random.Random) -> bytes:
    """One malformed or odd frame, from the kinds a broken or hostile client sends."""
    kind = rng.randrange(8)
    body = rng.choice([GARBAGE_BODY, GARBAGE_BODY[: rng.randrange(len(GARBAGE_BODY))], b""])
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80)))
    if kind == 1:
        return with_value(rng.choice([b"-5", b"abc", b"", b"12 34", b"+5", b"1e3", b"\xff"]))
    if kind == 2:
        return b"Content-Length: %d\r\n\r\n" % rng.randrange(0, 300) + body
    if kind == 3:
        return rng.choice([b"\r\n", b"\n", b"\r\n\r\n", b"Content-Length: 9", b"X-A: b"])
    if kind == 4:
        return b"Content-Length: %d\r\nContent-Length: 3\r\n\r\n" % len(body) + body
    if kind == 5:
        head = rng.choice([b"content-length:", b"Content-Length :", b"Content-Length"])
        return head + b" %d\r\n\r\n" % len(body) + body
    if kind == 6:  # well framed, but not a request this server can take
        bad_id = rng.choice([b"1.5", b"true", b"null", b"[]", b'"s"'])
        return framed_raw(b'{"jsonrpc": "2.0", "id": ' + bad_id + b', "method": "x/y"}')
    return framed_raw(rng.choice([b"{bad}", b"[]", b"5", b'{"jsonrpc": "2.0"}', b"\xff\xfe"]))


def framed_raw(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_deframer_property_no_message_is_lost_after_garbage() -> None:
    rng = random.Random(29)
    for case in range(5000):
        garbage = b"".join(random_garbage(rng) for _ in range(rng.randrange(1, 4)))
        sizes = [rng.choice([1, 2, 5, 64, 1 << 20]) for _ in range(3)]
        out = frames_of(garbage + request(case), sizes)
        assert ids_of(out)[-1:] == [case], (garbage, sizes)


# ---- the real server under a seeded fuzz ----

FUZZ_MESSAGES = 10_000
PROBE_EVERY = 100


@pytest.mark.slow
def test_seeded_fuzz_loses_no_liveness_probe_and_no_request() -> None:
    """10,000 malformed and valid frames; a probe after every 100 must be answered, without
    any bare CRLF to unstick the reader; every well-formed request is answered too."""
    rng = random.Random(2029)
    w = IndexedWire()
    try:
        w.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        assert w.answer(1) is not None
        started = time.monotonic()
        sent, lost, valid = 0, [], []
        rid = 100_000
        while sent < FUZZ_MESSAGES:
            batch = []
            for _ in range(PROBE_EVERY):
                rid += 1
                if rng.random() < 0.1:
                    valid.append(rid)
                    batch.append(request(rid))
                else:
                    batch.append(random_garbage(rng))
                sent += 1
            rid += 1
            w.raw(b"".join(batch) + request(rid))  # the liveness probe, right after garbage
            if w.answer(rid, timeout=5.0) is None:
                lost.append(rid)
                if len(lost) >= 3:
                    break  # the old reader: do not wait 5 s for each of 100 probes
            assert w.proc.poll() is None, "the server died"
        unanswered = [r for r in valid if w.answer(r, timeout=2.0) is None]
        elapsed = time.monotonic() - started
    finally:
        w.close()
    assert lost == []
    assert sent == FUZZ_MESSAGES
    assert unanswered == []
    assert elapsed < 60
