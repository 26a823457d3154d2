"""The stdio wire survives bad frames: huge lengths, bad headers, bad JSON; it answers and resyncs."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

TIMEOUT = 30.0


class Wire:
    """A raw LSP client over the real server's stdin/stdout."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "crane_server", "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.messages: list[dict[str, Any]] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if not line.strip():
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            assert length is not None
            msg = json.loads(out.read(length))
            with self.cond:
                self.messages.append(msg)
                self.cond.notify_all()

    def raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, payload: Any) -> None:
        body = json.dumps(payload).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def wait(self, pred: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for m in self.messages:
                    if pred(m):
                        return m
                left = deadline - time.monotonic()
                assert left > 0, f"no matching message; got {self.messages[-5:]}"
                self.cond.wait(left)

    def request(self, rid: int, method: str, params: Any = None) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == rid and ("result" in m or "error" in m))

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def wire() -> Any:
    w = Wire()
    w.request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    w.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    yield w
    w.close()


def probe(w: Wire, rid: int) -> None:
    reply = w.request(rid, "workspace/symbol", {"query": ""})
    assert "id" in reply


def test_huge_content_length_is_skipped_not_fatal(wire: Wire) -> None:
    wire.raw(b"Content-Length: 99999999999\r\n\r\n{}")
    wire.wait(lambda m: m.get("id") is None and m.get("error", {}).get("code") == -32600)
    assert wire.proc.poll() is None


@pytest.mark.parametrize(
    "header", [b"Content-Length: -5\r\n", b"abc\r\n", b"Content-Length: x\r\n"]
)
def test_bad_header_resyncs(header: bytes) -> None:
    w = Wire()
    try:
        w.raw(header + b"\r\n")
        w.request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        assert w.proc.poll() is None
    finally:
        w.close()


def test_bad_json_gets_parse_error(wire: Wire) -> None:
    wire.raw(b"Content-Length: 5\r\n\r\n{bad}")
    wire.wait(lambda m: m.get("error", {}).get("code") == -32700)
    probe(wire, 50)


def test_seeded_fuzz_server_survives() -> None:
    rng = random.Random(12)
    w = Wire()
    try:
        w.request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        sent = 0
        start = time.monotonic()
        for batch in range(20):
            for _ in range(150):
                kind = rng.randrange(5)
                if kind == 0:
                    w.raw(
                        rng.choice(
                            [
                                b"Content-Length: -1\r\n\r\n",
                                b"junk\r\n\r\n",
                                b"Content-Length: 99999999999999999999\r\n\r\n",
                            ]
                        )
                    )
                elif kind == 1:
                    body = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
                    w.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                elif kind == 2:
                    w.send(rng.choice([5, "x", [], None, {"jsonrpc": "2.0"}]))
                else:
                    w.send(
                        {
                            "jsonrpc": "2.0",
                            "method": f"unknown/{rng.randrange(9)}",
                            "params": rng.choice([None, 3, "s", {}]),
                        }
                    )
                sent += 1
            probe(w, 1000 + batch)
            assert w.proc.poll() is None
        assert time.monotonic() - start < 120  # bounded: a hang fails, not a slow machine
        assert sent == 3000
    finally:
        w.close()


def test_request_before_initialize_is_refused() -> None:
    w = Wire()
    try:
        reply = w.request(7, "workspace/symbol", {"query": ""})
        assert reply["error"]["code"] == -32002
    finally:
        w.close()


def test_request_after_shutdown_is_invalid(wire: Wire) -> None:
    assert "result" in wire.request(2, "shutdown")
    reply = wire.request(3, "workspace/symbol", {"query": ""})
    assert reply["error"]["code"] == -32600


MALFORMED: list[tuple[str, Any]] = [
    ("textDocument/hover", None),
    ("textDocument/hover", 5),
    ("textDocument/hover", {"textDocument": 3}),
    ("textDocument/hover", {"textDocument": {"uri": "file:///x"}, "position": {"line": "a"}}),
    ("workspace/executeCommand", {"command": 5}),
    ("workspace/executeCommand", {"command": "crane.attachKernel", "arguments": 7}),
    ("workspace/executeCommand", {"command": "crane.nope"}),
    ("textDocument/codeAction", {}),
    ("textDocument/diagnostic", {"textDocument": None}),
    ("nonexistent/method", {}),
]


def test_every_malformed_request_is_answered_without_traceback_or_popup(wire: Wire) -> None:
    for i, (method, params) in enumerate(MALFORMED):
        reply = wire.request(100 + i, method, params)
        error = reply.get("error")
        if error is not None:
            assert "data" not in error or error["data"] is None, reply
            assert "Traceback" not in json.dumps(reply)
    wire.send({"jsonrpc": "2.0", "id": 10**30, "method": "workspace/symbol", "params": {}})
    wire.send({"jsonrpc": "2.0", "id": True, "method": "workspace/symbol", "params": {}})
    wire.send({"jsonrpc": "2.0", "id": 300, "method": 5})
    wire.wait(lambda m: m.get("id") == 300 and m.get("error", {}).get("code") == -32600)
    probe(wire, 301)
    popups = [m for m in wire.messages if m.get("method") == "window/showMessage"]
    assert popups == []
