"""WebSocketRouter: ChannelRouter's interface over Jupyter Server's `/api/kernels/{id}/channels`.

The websocket client is the `websockets` library (asyncio, maintained, already installed for
`serve --ws`); the protocol is not written by hand here. One socket carries shell, control
and IOPub; replies are routed to futures by parent id exactly as on ZeroMQ, so KernelSession
above it stays one implementation.

A dropped socket never hangs a caller: requests in flight fail at once with KernelNotFound,
then the router reconnects with backoff (0.1 s doubling, for at most `reconnect_for` seconds);
requests sent meanwhile wait for the new socket within their own timeout. A kernel the server
no longer has (404), a refused token or a server that stays away ends the router: every later
request fails at once with that error. A kernel shut down through the REST API (or culled)
can leave the socket open and silent: a request unanswered for 2 s makes the router ask
`GET /api/kernels/{id}`, and a 404 or a dead kernel ends it the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from typing import Any

from jupyter_client.session import Session
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from crane_server.errors import KernelError, KernelNotFound, KernelTimeout
from crane_server.kernels.channels import Message, MessageHandler, stop_tasks_and_waiters
from crane_server.kernels.remote_framing import (
    V1_PROTOCOL,
    decode_json,
    decode_v1,
    encode_json,
    encode_v1,
)
from crane_server.kernels.remote_server import (
    ServerClient,
    ServerEndpoint,
    refused,
    tls_context,
)
from crane_server.protocol.jupyter_sessions import KERNEL_CLIENT_USERNAME

log = logging.getLogger(__name__)
# The websockets library logs the opening handshake's headers at DEBUG, the token's
# Authorization header among them: its logger for crane's sockets never goes below INFO.
_SOCKET_LOG = logging.getLogger(__name__ + ".socket")
_SOCKET_LOG.setLevel(logging.INFO)

MAX_FRAME = 64 * 1024 * 1024  # a probe reply with large buffers stays well under this
_TCP_QUICKACK: int = getattr(socket, "TCP_QUICKACK", 0)  # 0 where the OS has none
LIVENESS_CHECK_S = 2.0  # a request unanswered this long makes the router ask the server


class WebSocketRouter:
    """One kernel's channels over one websocket; `connect()` first, then `start()`."""

    def __init__(
        self,
        endpoint: ServerEndpoint,
        kernel_id: str,
        on_message: MessageHandler,
        *,
        timeout: float,
        protocol: str = "v1",
        reconnect_for: float = 10.0,
    ) -> None:
        if protocol not in ("v1", "json"):
            raise ValueError(f"protocol is 'v1' or 'json', not {protocol!r}")
        self.endpoint = endpoint
        self.kernel_id = kernel_id
        self.protocol = protocol  # asked for; `negotiated` says what the server chose
        self.negotiated: str | None = None
        self._session = Session(username=KERNEL_CLIENT_USERNAME)  # builds headers; signs nothing
        self._on_message = on_message
        self._timeout = timeout
        self._reconnect_for = reconnect_for
        self._ws: ClientConnection | None = None
        self._socket: Any = None  # for TCP_QUICKACK (Linux only)
        self._connected = asyncio.Event()
        self._pending: dict[str, asyncio.Future[Message]] = {}
        self._outbox: asyncio.Queue[tuple[str, Message]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._gone: KernelError | None = None  # set once the router cannot come back
        self._rest: ServerClient | None = None  # for liveness checks, made on first need
        self._final = False  # the last handshake was refused for good (401/403/404)
        self._closed = False

    @property
    def gone(self) -> KernelError | None:
        """Why the router can never come back (a refused token, a kernel or server gone)."""
        return self._gone

    @property
    def where(self) -> str:
        return f"kernel {self.kernel_id} on {self.endpoint.display_url}"

    # ---------------------------------------------------------------- lifecycle

    async def connect(self) -> None:
        """Open the websocket; KernelNotFound (token, unknown kernel, unreachable) or
        KernelTimeout."""
        url = self.endpoint.websocket_url(self.kernel_id, self._session.session)
        subprotocols: Any = [V1_PROTOCOL] if self.protocol == "v1" else None
        tls = tls_context() if url.startswith("wss:") else None
        try:
            self._ws = await connect(
                url,
                additional_headers=self.endpoint.headers,
                subprotocols=subprotocols,
                open_timeout=self._timeout,
                close_timeout=1.0,
                logger=_SOCKET_LOG,
                max_size=MAX_FRAME,
                proxy=None,
                compression=None,
                ssl=tls,
            )
        except InvalidStatus as exc:
            status = exc.response.status_code
            if status in (401, 403):
                self._final = True
                raise refused(self.endpoint, status) from exc
            if status == 404:
                self._final = True
                raise KernelNotFound(f"no {self.where}") from exc
            raise KernelNotFound(f"the websocket of {self.where} got HTTP {status}") from exc
        except TimeoutError as exc:
            raise KernelTimeout(
                f"the websocket of {self.where} did not open within {self._timeout:g} s"
            ) from exc
        except (OSError, WebSocketException) as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise KernelNotFound(f"cannot open the websocket of {self.where}: {reason}") from exc
        self.negotiated = self._ws.subprotocol
        # asyncio hands out a TransportSocket wrapper: it has setsockopt, not the socket type.
        sock = self._ws.transport.get_extra_info("socket") if _TCP_QUICKACK else None
        self._socket = sock if hasattr(sock, "setsockopt") else None
        self._quickack()
        self._connected.set()

    def start(self) -> None:
        """Start the reader and the writer (after `connect`)."""
        self._tasks.append(asyncio.create_task(self._read(), name="crane-ws-read"))
        self._tasks.append(asyncio.create_task(self._write(), name="crane-ws-write"))

    async def close(self) -> None:
        """Stop the tasks, cancel pending requests, close the socket. The kernel keeps running."""
        if self._closed:
            return
        self._closed = True
        await stop_tasks_and_waiters(self._tasks, self._pending)
        if self._rest is not None:
            await self._rest.__aexit__(None, None, None)
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._ws.close(), 2.0)

    # ---------------------------------------------------------------- requests

    def new_message(self, msg_type: str, content: dict[str, Any]) -> Message:
        message: Message = self._session.msg(msg_type, content)
        return message

    def send(self, channel: str, message: Message) -> asyncio.Future[Message]:
        """Queue for sending and return the future of its reply (on the same channel)."""
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        if self._gone is not None or self._closed:
            future.set_exception(self._gone or KernelNotFound(f"detached from the {self.where}"))
            return future
        self._pending[message["header"]["msg_id"]] = future
        self._outbox.put_nowait((channel, message))
        return future

    async def request(
        self, channel: str, msg_type: str, content: dict[str, Any], *, timeout: float
    ) -> Message:
        """Send a request and wait for its reply; KernelTimeout when none comes in time."""
        message = self.new_message(msg_type, content)
        return await self.wait(message, self.send(channel, message), timeout=timeout)

    async def wait(
        self, message: Message, future: asyncio.Future[Message], *, timeout: float
    ) -> Message:
        """The reply; every LIVENESS_CHECK_S without one, the server is asked whether the
        kernel still exists (a kernel shut down or culled leaves the socket open and silent)."""
        msg_id = message["header"]["msg_id"]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise asyncio.TimeoutError
                try:
                    return await asyncio.wait_for(
                        asyncio.shield(future), min(remaining, LIVENESS_CHECK_S)
                    )
                except asyncio.TimeoutError:
                    if loop.time() >= deadline:
                        raise
                await self._check_alive(deadline - loop.time())
        except asyncio.TimeoutError as exc:
            raise KernelTimeout(
                f"the {self.where} did not answer {message['header']['msg_type']} "
                f"within {timeout:g} s"
            ) from exc
        finally:
            self._pending.pop(msg_id, None)
            if not future.done():
                future.cancel()
            elif not future.cancelled():
                future.exception()  # retrieved: what it holds was raised above

    async def check_alive(self, budget: float) -> None:
        """Ask the server whether it still has the kernel; KernelNotFound (and the router gone)
        when it does not. A slow server says nothing: no error then."""
        await self._check_alive(budget)

    async def _check_alive(self, budget: float) -> None:
        """KernelNotFound (and the router gone) when the server no longer has the kernel."""
        if self._rest is None:
            self._rest = ServerClient(self.endpoint, timeout=LIVENESS_CHECK_S)
        try:
            model = await asyncio.wait_for(
                self._rest.kernel(self.kernel_id), max(0.1, min(LIVENESS_CHECK_S, budget))
            )
        except (asyncio.TimeoutError, KernelTimeout):
            return  # a slow server says nothing about the kernel
        except KernelNotFound as exc:
            lost = KernelNotFound(f"lost the {self.where}: {exc}")
            self._give_up(lost)
            raise lost from exc
        if model.get("execution_state") == "dead":
            dead = KernelNotFound(f"the server reports the {self.where} dead")
            self._give_up(dead)
            raise dead

    def _give_up(self, error: KernelError) -> None:
        self._gone = error
        self.fail_pending(error)
        while not self._outbox.empty():
            self._outbox.get_nowait()

    def fail_pending(self, error: Exception) -> None:
        """Every request waiting for a reply fails now with `error`."""
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()

    # ---------------------------------------------------------------- the socket

    def _encode(self, channel: str, message: Message) -> str | bytes:
        if self.negotiated == V1_PROTOCOL:
            return encode_v1(channel, message)
        return encode_json(channel, message)

    async def _write(self) -> None:
        while True:
            channel, message = await self._outbox.get()
            await self._connected.wait()
            ws = self._ws
            if ws is None:
                continue
            try:
                await ws.send(self._encode(channel, message))
            except ConnectionClosed:
                future = self._pending.pop(message["header"]["msg_id"], None)
                if future is not None and not future.done():
                    future.set_exception(KernelNotFound(f"the websocket of {self.where} closed"))

    async def _read(self) -> None:
        while not self._closed:
            ws = self._ws
            if ws is None:
                return
            try:
                async for frame in ws:
                    self._dispatch(frame)
            except ConnectionClosed:
                pass
            if self._closed:
                return
            self._connected.clear()
            code = ws.close_code
            self.fail_pending(
                KernelNotFound(
                    f"the websocket of {self.where} closed"
                    + (f" (code {code})" if code is not None else "")
                    + "; the reply is lost"
                )
            )
            while not self._outbox.empty():  # their callers were just told: never send them
                self._outbox.get_nowait()
            if not await self._reconnect():
                return

    async def _reconnect(self) -> bool:
        """Backoff until the socket is back; False (and the router gone) when it cannot be."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._reconnect_for
        delay = 0.1
        error: KernelError = KernelNotFound(f"lost the websocket of {self.where}")
        while loop.time() + delay < deadline:
            await asyncio.sleep(delay)
            delay = min(2 * delay, 2.0)
            try:
                await self.connect()
            except KernelNotFound as exc:
                error = exc
                if self._final:
                    break  # a refused token or a kernel the server no longer has
            except KernelTimeout as exc:
                error = exc
            else:
                log.info("reconnected the websocket of %s", self.where)
                return True
        self._give_up(KernelNotFound(f"lost the websocket of {self.where}: {error}"))
        return False

    def _quickack(self) -> None:
        """Acknowledge at once (Linux): Jupyter Server writes each kernel message as its own
        small frame without TCP_NODELAY, so each waits for our ACK, which Linux delays by up
        to 40 ms: measured, a control request took 44 ms instead of 3.6 ms."""
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.setsockopt(socket.IPPROTO_TCP, _TCP_QUICKACK, 1)

    def _dispatch(self, frame: str | bytes) -> None:
        self._quickack()  # quick-ACK mode does not stick: renewed after every frame
        try:
            if isinstance(frame, bytes) and self.negotiated == V1_PROTOCOL:
                channel, message = decode_v1(frame)
            else:
                channel, message = decode_json(frame)
        except (ValueError, UnicodeDecodeError) as exc:
            log.debug("dropping an unreadable websocket frame: %s", exc)
            return
        if channel not in ("shell", "control", "iopub"):
            return  # stdin: crane never allows input
        if channel != "iopub":
            parent_id = (message.get("parent_header") or {}).get("msg_id")
            future = self._pending.pop(parent_id, None) if parent_id else None
            if future is not None and not future.done():
                future.set_result(message)
        try:
            self._on_message(channel, message)
        except Exception:
            log.exception("kernel message handler failed")
