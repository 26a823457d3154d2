"""A real OpenAI-compatible HTTP server on 127.0.0.1 for the LLM tests.

It implements POST /v1/responses and /v1/chat/completions, records every request, and
answers from a script of behaviours (one per request, in order; then the default).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERDICT_TEXT = json.dumps(
    {
        "crash": True,
        "reasoning": "column 'Agee' does not exist",
        "diagnoses": [
            {
                "exception": "KeyError",
                "line": 2,
                "cause": "df has no column 'Agee'",
                "fix": "df['Age'].mean()",
            }
        ],
    }
)


@dataclass
class Behaviour:
    """How to answer one request."""

    status: int = 200
    text: str | None = VERDICT_TEXT  # model output text, wrapped in the API's envelope
    raw_body: bytes | None = None  # sent as-is instead of an envelope
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    error_message: str = "scripted error"


def verdict(text: str = VERDICT_TEXT) -> Behaviour:
    return Behaviour(text=text)


def slow(seconds: float, text: str = VERDICT_TEXT) -> Behaviour:
    return Behaviour(text=text, delay=seconds)


def status(code: int, message: str = "scripted error", **headers: str) -> Behaviour:
    return Behaviour(status=code, text=None, error_message=message, headers=dict(headers))


def malformed() -> Behaviour:
    return Behaviour(raw_body=b'{"id": "resp_1", "output": [ this is not json')


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeOpenAI:
    """Start with `start()`, point the SDK at `base_url`, read `requests` afterwards."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.script: deque[Behaviour] = deque()
        self.default = Behaviour()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self.request_seen = threading.Event()

    @property
    def base_url(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def enqueue(self, *behaviours: Behaviour) -> None:
        with self._lock:
            self.script.extend(behaviours)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.script.clear()
            self.default = Behaviour()
            self.request_seen.clear()

    def _next(self, request: RecordedRequest) -> Behaviour:
        with self._lock:
            self.requests.append(request)
            behaviour = self.script.popleft() if self.script else self.default
        self.request_seen.set()
        return behaviour

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                path = self.path.split("?", 1)[0]
                recorded = RecordedRequest(
                    path, {k.lower(): v for k, v in self.headers.items()}, body
                )
                behaviour = fake._next(recorded)
                if behaviour.delay and fake._closing.wait(behaviour.delay):
                    return
                if path not in ("/v1/responses", "/v1/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {path}"}}, {})
                    return
                if behaviour.raw_body is not None:
                    self._send_bytes(behaviour.status, behaviour.raw_body, behaviour.headers)
                elif behaviour.status != 200:
                    error = {"error": {"message": behaviour.error_message, "type": "scripted"}}
                    self._send(behaviour.status, error, behaviour.headers)
                elif path == "/v1/responses":
                    self._send(
                        200, _responses_envelope(body, behaviour.text or ""), behaviour.headers
                    )
                else:
                    self._send(200, _chat_envelope(body, behaviour.text or ""), behaviour.headers)

            def _send(self, code: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
                self._send_bytes(code, json.dumps(payload).encode(), headers)

            def _send_bytes(self, code: int, data: bytes, headers: dict[str, str]) -> None:
                try:
                    self.send_response(code)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name.replace("_", "-"), value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout, cancellation)

        return Handler


def _responses_envelope(request: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "resp_fake",
        "object": "response",
        "created_at": int(time.time()),
        "model": request.get("model", "fake"),
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_fake",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 321,
            "output_tokens": 45,
            "total_tokens": 366,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def _chat_envelope(request: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl_fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": text},
            }
        ],
        "usage": {"prompt_tokens": 123, "completion_tokens": 45, "total_tokens": 168},
    }
