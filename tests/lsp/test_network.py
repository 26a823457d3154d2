"""`serve --tcp` / `--ws` as a real process, reached with real sockets and websockets.

No token, a wrong token, a second client while one is connected and a web page's Origin
are refused; the right token gets initialize answered; a non-loopback --host is warned of.
"""

from __future__ import annotations

import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from crane_server.lsp.network import exposure_warning, is_loopback, origin_allowed

pytestmark = pytest.mark.timeout(60)
WAIT = 15.0


class ServerProcess:
    """`crane-server serve ...` with its stderr collected line by line."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CRANE_", "OPENAI_"))}
        env["JUPYTER_RUNTIME_DIR"] = str(cwd / "runtime")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "crane_server", "serve", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        listening = self.wait_for(lambda line: "listening on" in line)
        self.port = int(re.search(r":(\d+)$", listening.strip()).group(1))  # type: ignore[union-attr]
        printed = [line for line in self.lines if "crane-server: token: " in line]
        self.token = printed[0].split("token: ", 1)[1].strip() if printed else None

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._queue.put(line)

    def wait_for(self, match: Callable[[str], bool], timeout: float = WAIT) -> str:
        deadline = time.monotonic() + timeout
        for line in self.lines:
            if match(line):
                return line
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"not printed in time; stderr so far: {self.lines}"
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            self.lines.append(line)
            if match(line):
                return line

    @property
    def stderr(self) -> str:
        return "".join(self.lines)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    started: list[ServerProcess] = []

    def start(*args: str) -> ServerProcess:
        server = ServerProcess(list(args), tmp_path)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def initialize(request_id: int = 1, token: str | None = None) -> dict[str, Any]:
    options = {"debounceMs": 20} if token is None else {"debounceMs": 20, "token": token}
    params = {"processId": None, "rootUri": None, "capabilities": {}}
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {**params, "initializationOptions": options},
    }


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class Client:
    """A raw TCP LSP client."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        self.buffer = b""

    def send(self, message: dict[str, Any], prefix: bytes = b"") -> None:
        self.sock.sendall(prefix + frame(message))

    def _fill(self) -> bool:
        chunk = self.sock.recv(65536)
        self.buffer += chunk
        return bool(chunk)

    def receive(self) -> dict[str, Any] | None:
        """The next message, or None when the server closed the connection."""
        while b"\r\n\r\n" not in self.buffer:
            if not self._fill():
                return None
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
        self.buffer = rest
        while len(self.buffer) < length:
            if not self._fill():
                return None
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return json.loads(body)  # type: ignore[no-any-return]

    def response(self, request_id: int) -> dict[str, Any] | None:
        """The answer to `request_id` (notifications before it skipped), None at end."""
        while True:
            message = self.receive()
            if message is None or message.get("id") == request_id:
                return message

    def closed(self) -> bool:
        """True when the server hangs up (end of stream before any further message)."""
        return self.receive() is None

    def close(self) -> None:
        self.sock.close()


def refused(client: Client, word: str) -> None:
    answer = client.response(1)
    assert answer is not None and word in answer["error"]["message"], answer
    assert client.closed()


def answered(answer: dict[str, Any] | None) -> None:
    assert answer is not None and "capabilities" in answer["result"], answer


def test_tcp_without_a_token_is_refused(serve: Callable[..., ServerProcess]) -> None:
    server = serve("--tcp", "--port", "0")
    assert server.token and len(server.token) >= 32
    client = Client(server.port)
    client.send(initialize())
    refused(client, "unauthorized")
    garbage = Client(server.port)
    garbage.sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert garbage.closed()


def test_tcp_with_a_wrong_token_is_refused(serve: Callable[..., ServerProcess]) -> None:
    server = serve("--tcp", "--port", "0")
    as_option = Client(server.port)
    as_option.send(initialize(token="not-the-token"))
    refused(as_option, "unauthorized")
    as_line = Client(server.port)
    as_line.send(initialize(), prefix=b"crane-token not-the-token\n")
    refused(as_line, "unauthorized")
    assert "not-the-token" not in server.stderr


def test_tcp_with_the_token_is_answered_one_client_at_a_time(
    serve: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    log_file = tmp_path / "server.log"
    server = serve("--tcp", "--port", "0", "--log-file", str(log_file), "--log-level", "DEBUG")
    first = Client(server.port)
    first.send(initialize(token=server.token))
    answered(first.response(1))
    second = Client(server.port)  # right token, but the one seat is taken
    second.send(initialize(), prefix=f"crane-token {server.token}\n".encode())
    refused(second, "busy")
    first.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    assert first.response(2) == {"id": 2, "jsonrpc": "2.0", "result": None}
    first.send({"jsonrpc": "2.0", "method": "exit"})
    assert first.closed()
    assert server.process.poll() is None  # `exit` ended the connection, not the server
    third = Client(server.port)
    third.send(initialize(), prefix=f"crane-token {server.token}\r\n".encode())
    answered(third.response(1))
    logged = log_file.read_text(encoding="utf-8")
    assert "client ('127.0.0.1'" in logged
    assert server.token is not None and server.token not in logged


def test_max_clients_two(serve: Callable[..., ServerProcess]) -> None:
    server = serve("--tcp", "--port", "0", "--max-clients", "2")
    clients = [Client(server.port) for _ in range(3)]
    for client in clients:
        client.send(initialize(token=server.token))
    answered(clients[0].response(1))
    answered(clients[1].response(1))
    refused(clients[2], "busy")


def test_token_file_and_no_token(serve: Callable[..., ServerProcess], tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("from-a-file-0123456789abcdef\n", encoding="utf-8")
    server = serve("--tcp", "--port", "0", "--token-file", str(token_file))
    assert server.token is None  # read, not printed
    client = Client(server.port)
    client.send(initialize(token="from-a-file-0123456789abcdef"))
    answered(client.response(1))
    open_server = serve("--tcp", "--port", "0", "--no-token")
    assert open_server.token is None
    anyone = Client(open_server.port)
    anyone.send(initialize())
    answered(anyone.response(1))


def ws_url(server: ServerProcess, token: str | None = None) -> str:
    query = "" if token is None else f"?token={token}"
    return f"ws://127.0.0.1:{server.port}/{query}"


def ws_initialize(connection: ClientConnection) -> dict[str, Any]:
    connection.send(json.dumps(initialize()))
    while True:
        message = json.loads(connection.recv(timeout=WAIT))
        if message.get("id") == 1:
            return message  # type: ignore[no-any-return]


def ws_status(url: str, **kwargs: Any) -> int:
    """The HTTP status a refused handshake got."""
    with pytest.raises(InvalidStatus) as refused:
        connect(url, open_timeout=WAIT, **kwargs).close()
    return refused.value.response.status_code


def test_ws_tokens(serve: Callable[..., ServerProcess], tmp_path: Path) -> None:
    log_file = tmp_path / "server.log"
    server = serve("--ws", "--port", "0", "--log-file", str(log_file), "--log-level", "DEBUG")
    assert ws_status(ws_url(server)) == 401
    assert ws_status(ws_url(server, "wrong-token")) == 401
    with connect(ws_url(server, server.token), open_timeout=WAIT) as connection:
        answered(ws_initialize(connection))
    bearer = {"Authorization": f"Bearer {server.token}"}
    with connect(ws_url(server), additional_headers=bearer, open_timeout=WAIT) as connection:
        answered(ws_initialize(connection))
    logged = log_file.read_text(encoding="utf-8")
    assert "GET /?token=[redacted]" in logged  # websockets logs the request line at DEBUG
    assert server.token is not None and server.token not in logged


def test_ws_second_client_refused(serve: Callable[..., ServerProcess]) -> None:
    server = serve("--ws", "--port", "0")
    with connect(ws_url(server, server.token), open_timeout=WAIT) as connection:
        answered(ws_initialize(connection))
        assert ws_status(ws_url(server, server.token)) == 503


def test_ws_origin(serve: Callable[..., ServerProcess]) -> None:
    server = serve("--ws", "--port", "0", "--allow-origin", "https://lab.example.org")
    url = ws_url(server, server.token)
    assert ws_status(url, origin="https://evil.example.com") == 403  # type: ignore[arg-type]
    for origin in ("http://localhost:8888", "vscode-webview://abc", "https://lab.example.org"):
        with connect(url, origin=origin, open_timeout=WAIT) as connection:  # type: ignore[arg-type]
            answered(ws_initialize(connection))


def test_all_interfaces_are_warned_of(serve: Callable[..., ServerProcess]) -> None:
    loud = serve("--tcp", "--host", "0.0.0.0", "--port", "0")
    warning = loud.wait_for(lambda line: "WARNING" in line)
    assert "0.0.0.0 is not a loopback address" in warning
    quiet = serve("--tcp", "--port", "0")
    assert "WARNING" not in quiet.stderr


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        pytest.param(None, True, id="no-origin"),
        pytest.param("http://127.0.0.1:5173", True, id="loopback"),
        pytest.param("http://[::1]:80", True, id="ipv6-loopback"),
        pytest.param("vscode-webview://1234", True, id="webview"),
        pytest.param("http://localhost.evil.com", False, id="lookalike"),
        pytest.param("null", False, id="sandboxed-page"),
        pytest.param("https://example.com", False, id="web-page"),
    ],
)
def test_origin_rules(origin: str | None, allowed: bool) -> None:
    assert origin_allowed(origin, ()) is allowed


def test_exposure_rules() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert exposure_warning("127.0.0.1", 8765, True) is None
    assert "ANYONE" in (exposure_warning("192.168.1.5", 8765, False) or "")
