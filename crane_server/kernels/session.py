"""KernelSession: one attached kernel, its state, its events, and the requests crane sends it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from crane_server.errors import (
    KernelBusy,
    KernelError,
    KernelNotFound,
    KernelTimeout,
)
from crane_server.errors import (
    KernelDied as KernelDiedError,
)
from crane_server.kernels import inventory as inv
from crane_server.kernels.activity import ActivityTracker
from crane_server.kernels.bookkeeping import (
    BOOKKEEPING_REQUEST,
    describe_request_content,
    parse_describe_reply,
)
from crane_server.kernels.channels import ChannelRouter, Message, MessageHandler
from crane_server.kernels.connection import (
    connection_kwargs,
    kernel_id_from_path,
    read_connection_file_async,
)
from crane_server.kernels.events import (
    KernelDied,
    KernelEvent,
    KernelRestarted,
)
from crane_server.kernels.outcome import ExecutionOutcome
from crane_server.kernels.probe_transport import (
    build_probe_content,
    decode_probe_reply,
    probe_missing,
)
from crane_server.kernels.remote_headers import Headers
from crane_server.protocol import NameInventory

log = logging.getLogger(__name__)

Listener = Callable[[KernelEvent], None]


class Router(Protocol):
    """A kernel transport: ChannelRouter (ZeroMQ) or WebSocketRouter (Jupyter Server)."""

    def start(self) -> None: ...
    def new_message(self, msg_type: str, content: dict[str, Any]) -> Message: ...
    def send(self, channel: str, message: Message) -> asyncio.Future[Message]: ...
    async def wait(
        self, message: Message, future: asyncio.Future[Message], *, timeout: float
    ) -> Message: ...
    def fail_pending(self, error: Exception) -> None: ...
    async def close(self) -> None: ...


_LOCAL_IPS = frozenset({"127.0.0.1", "localhost", "0.0.0.0", "::1", "*"})


def _line(exc: Exception) -> str:
    """An exception as one short line."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


class KernelSession:
    """A live view of one kernel: state from IOPub, requests with timeouts, events to listeners."""

    def __init__(
        self,
        connection_file: Path,
        info: dict[str, Any],
        *,
        heartbeat: float,
        router: Callable[[MessageHandler], Router] | None = None,
    ) -> None:
        """`router`: builds the transport (default: ZeroMQ from `info`); see attach_remote."""
        self.connection_file = connection_file  # for a remote kernel: api/kernels/<id>
        self.kernel_id: str | None = kernel_id_from_path(connection_file)
        self.server_url: str | None = None  # the Jupyter Server of a remote kernel
        self.location = f"the kernel of {connection_file}"  # for messages
        self.pid: int | None = None
        self.kernel_session: str | None = None  # the kernel process's Session id (reply headers)
        # What the kernel said about itself at attach (language, implementation), learned
        # without kernel_info: see BOOKKEEPING_REQUEST.
        self.info: dict[str, Any] = {}
        self.supported_features: list[str] = []  # never asked (kernel_info has side effects)
        self.heartbeat_interval = heartbeat
        self._local = str(info.get("ip", "")) in _LOCAL_IPS
        self._router: Router = (
            router(self._on_message)
            if router is not None
            else ChannelRouter(connection_kwargs(info), self._on_message)
        )
        self._listeners: list[Listener] = []
        self._activity = ActivityTracker(self._emit)
        self._iopub_ready = asyncio.Event()
        self._probe_installed: str | None = None  # kernel_session the probe was installed in
        self._last_listing: NameInventory | None = None  # last complete (idle) inventory
        self._listing_runs = -1  # `finished_runs` when that listing was asked for
        self._heartbeat: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._died = False
        self._exited: str | None = None  # why the process crane started is gone
        self._closed = False

    @property
    def on_this_machine(self) -> bool:
        """Is the kernel a process on this machine (its interpreter can be started here)?"""
        return self._local

    @property
    def state(self) -> str:
        """One of idle, busy, dead, unknown: as last seen on IOPub and by the heartbeat."""
        return self._activity.state

    @property
    def own_requests_started(self) -> int:
        """How many of crane's own requests the kernel was seen to begin (IOPub busy)."""
        return self._activity.own_started

    @property
    def pending_code(self) -> list[str] | None:
        """Code of the user cells running now ([] when idle; None when unknown)."""
        return self._activity.pending_code()

    @property
    def execution_count(self) -> int | None:
        """The count of the last user execution seen (None after a restart)."""
        return self._activity.execution_count

    # ---------------------------------------------------------------- lifecycle

    @classmethod
    async def attach(
        cls, connection_file: str | Path, *, timeout: float = 2.0, heartbeat: float = 5.0
    ) -> KernelSession:
        """Connect and verify with a control request; KernelNotFound / KernelTimeout.

        `heartbeat`: seconds between liveness checks, sent only while someone subscribes.
        """
        path = Path(connection_file).expanduser()
        # Off the event loop and bounded: a file on a dead mount cannot stall the server.
        info = await read_connection_file_async(path, timeout=max(0.5, timeout))
        try:
            session = cls(path, info, heartbeat=heartbeat)
        except Exception as exc:  # traitlets rejects a field (TraitError)
            raise KernelNotFound(f"unusable connection file {path}: {_line(exc)}") from exc
        try:
            try:
                session._router.start()
            except Exception as exc:  # zmq cannot connect to the address (ZMQError)
                raise KernelNotFound(f"unusable connection file {path}: {_line(exc)}") from exc
            await session._verify(timeout)
        except BaseException:
            await session.close()
            raise
        return session

    @classmethod
    async def attach_remote(
        cls,
        server_url: str,
        kernel_id: str,
        *,
        token: str | None = None,
        timeout: float = 5.0,
        heartbeat: float = 5.0,
        protocol: str = "v1",
        headers: Headers | None = None,
    ) -> KernelSession:
        """Attach to kernel `kernel_id` of the Jupyter Server at `server_url` over its websocket.

        The same verification as `attach`; KernelNotFound for a refused token, an unknown
        kernel or an unreachable server, KernelTimeout when nothing answers within `timeout`.
        `protocol`: "v1" (the binary subprotocol, JSON if the server declines) or "json".
        `headers`: extra HTTP headers (see remote_headers.py; default: from the environment or
        the config file).
        """
        from crane_server.kernels.remote import WebSocketRouter
        from crane_server.kernels.remote_server import ServerClient, ServerEndpoint

        endpoint = ServerEndpoint.parse(server_url, token, headers)
        async with ServerClient(endpoint, timeout=timeout) as client:
            await client.kernel(kernel_id)  # 401/403/404 as one clear line, before the socket
        transport: list[WebSocketRouter] = []

        def build(on_message: MessageHandler) -> WebSocketRouter:
            transport.append(
                WebSocketRouter(endpoint, kernel_id, on_message, timeout=timeout, protocol=protocol)
            )
            return transport[0]

        session = cls(Path("api/kernels", kernel_id), {}, heartbeat=heartbeat, router=build)
        session.kernel_id = kernel_id
        session.server_url = endpoint.display_url
        session.location = transport[0].where
        try:
            await transport[0].connect()
            transport[0].start()
            await session._verify(timeout)
        except BaseException:
            await session.close()
            raise
        return session

    async def _verify(self, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            await self.bookkeeping("control", timeout=timeout)
        except KernelTimeout as exc:
            raise KernelTimeout(
                f"no answer from {self.location} within {timeout:g} s "
                + (
                    "(the kernel is dead or hung)"
                    if self.server_url
                    else "(the kernel is dead, hung, or the key is wrong)"
                )
            ) from exc
        # The shell answers only when no cell runs: that tells idle from busy.
        message = self._router.new_message(*BOOKKEEPING_REQUEST)
        self._activity.remember_own(message["header"]["msg_id"])
        shell = self._router.send("shell", message)
        shell.add_done_callback(self._on_shell_ready)
        # The rest of the attach budget (at least 0.5 s): a slow, loaded machine answers late,
        # and an idle kernel must not be reported busy for it.
        remaining = max(0.5, deadline - loop.time())
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(shell), remaining)
        if not shell.done() and self.state == "unknown":
            self._activity.set_state("busy")
        await self._await_iopub(deadline)
        await self._refresh_pid(max(0.05, min(1.0, deadline - loop.time())))
        if self.state == "idle":
            await self._describe(max(0.05, min(1.0, deadline - loop.time())))

    async def _describe(self, timeout: float) -> None:
        """Language and implementation, from one silent user expression (idle kernels only)."""
        try:
            content = await self._silent_execute(describe_request_content(), timeout)
        except (KernelError, KernelBusy):
            return
        self.info = parse_describe_reply(content)

    async def _await_iopub(self, deadline: float) -> None:
        """Our SUB socket joins late: nudge with control requests until IOPub speaks (bounded)."""
        loop = asyncio.get_running_loop()
        for _ in range(5):
            remaining = deadline - loop.time()
            if self._iopub_ready.is_set() or remaining <= 0:
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._iopub_ready.wait(), min(0.2, remaining))
            if not self._iopub_ready.is_set():
                self._spawn(self.bookkeeping("control", timeout=1.0))

    def _on_shell_ready(self, future: asyncio.Future[Message]) -> None:
        if not future.cancelled():
            self._activity.shell_answered()

    async def _refresh_pid(self, timeout: float) -> None:
        try:
            content = await self.request("control", "usage_request", {}, timeout=timeout)
        except KernelTimeout:
            return  # kernels without usage_request (ipykernel < 6.29) ignore it
        same_host = content.get("hostname") in (None, socket.gethostname())
        pid = content.get("pid")
        if isinstance(pid, int) and same_host:
            self.pid = pid

    async def close(self) -> None:
        """Detach: stop the heartbeat and readers, close the sockets. The kernel keeps running."""
        if self._closed:
            return
        self._closed = True
        self._listeners.clear()
        tasks = [t for t in (self._heartbeat, *self._background) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._router.close()

    async def __aenter__(self) -> KernelSession:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ---------------------------------------------------------------- events

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` for every event; returns the unsubscribe function."""
        self._listeners.append(listener)
        if self._heartbeat is None and not self._closed:
            self._heartbeat = asyncio.create_task(self._beat(), name="crane-kernel-heartbeat")

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
            if not self._listeners and self._heartbeat is not None:
                self._heartbeat.cancel()  # nobody listens: no heartbeat traffic at all
                self._heartbeat = None

        return unsubscribe

    def _emit(self, event: KernelEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("kernel event listener failed")

    # ---------------------------------------------------------------- requests

    async def bookkeeping(
        self, channel: str = "control", *, timeout: float = 2.0
    ) -> dict[str, Any]:
        """A request that runs no user-visible code (liveness, idle test); answers while busy
        on control."""
        msg_type, content = BOOKKEEPING_REQUEST
        return await self.request(channel, msg_type, content, timeout=timeout)

    async def request(
        self, channel: str, msg_type: str, content: dict[str, Any], *, timeout: float = 2.0
    ) -> dict[str, Any]:
        """Any request on shell or control whose IOPub status is not user activity."""
        message = self._router.new_message(msg_type, content)
        self._activity.remember_own(message["header"]["msg_id"])
        future = self._router.send(channel, message)
        reply = await self._router.wait(message, future, timeout=timeout)
        result: dict[str, Any] = reply["content"]
        return result

    async def run_probe(self, op: str, payload: dict[str, Any], *, timeout: float = 5.0) -> Any:
        """Run one probe op silently on the shell; KernelBusy while a user cell runs."""
        if self._probe_installed == self.kernel_session:
            content = await self._silent_execute(
                build_probe_content(op, payload, install=False), timeout
            )
            if not probe_missing(content):
                return decode_probe_reply(content)
        # First call in this kernel process (or the probe was removed): ship its source.
        content = await self._silent_execute(build_probe_content(op, payload), timeout)
        result = decode_probe_reply(content)
        self._probe_installed = self.kernel_session
        return result

    async def inventory(self, *, timeout: float = 2.0) -> NameInventory:
        """The user's names, from the silent listing on the shell (it calls no user code).

        While a cell runs the shell cannot answer: the last listing stands in when no user
        cell ended since it was asked for (the running cells' own names are `pending_code`),
        else the names are unavailable (KernelBusy). The debugger's `inspectVariables` would
        answer on control, but it computes a repr of every value: the user's `__repr__`.
        """
        if self.state == "idle":
            try:
                return await self._list_names(timeout)
            except KernelBusy as exc:
                log.debug("names listing refused, the kernel became busy: %s", exc)
        if self.state == "dead":
            raise KernelTimeout("the kernel died: its names are unavailable")
        listing = self._last_listing
        if listing is not None and self._listing_runs == self._activity.finished_runs:
            return NameInventory(names=dict(listing.names), source="listing-before-run")
        raise KernelBusy(
            "the kernel is busy and a cell ran since its names were last listed: "
            "its names are unavailable until it is idle"
        )

    async def _list_names(self, timeout: float) -> NameInventory:
        runs = self._activity.finished_runs
        content = await self._silent_execute(inv.names_request_content(), timeout)
        listing = inv.parse_names_reply(content)
        self._last_listing, self._listing_runs = listing, runs
        return listing

    async def execute(self, code: str, *, timeout: float) -> ExecutionOutcome:
        """A real user-style execution (history, count); for kernels crane started itself."""
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        }
        if self._exited is not None:
            return ExecutionOutcome(status="died", evalue=self._exited)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        message = self._router.new_message("execute_request", content)
        idle = self._activity.idle_future(message["header"]["msg_id"])
        try:
            reply = await self._router.wait(
                message, self._router.send("shell", message), timeout=timeout
            )
            # The reply can overtake IOPub's idle: wait for it so `state` is current on return.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(idle, max(0.05, min(1.0, deadline - loop.time())))
        except KernelTimeout:
            return ExecutionOutcome(status="timeout")
        except KernelDiedError as exc:
            return ExecutionOutcome(status="died", evalue=str(exc))
        finally:
            idle.cancel()
        return ExecutionOutcome.from_reply(reply["content"])

    async def _silent_execute(self, content: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self.state == "busy":
            raise KernelBusy("the kernel is running a cell; shell probes wait until it is idle")
        message = self._router.new_message("execute_request", content)
        self._activity.remember_own(message["header"]["msg_id"])
        future = self._router.send("shell", message)
        try:
            reply = await self._router.wait(message, future, timeout=timeout)
        except KernelTimeout as exc:
            if self.state == "busy":
                raise KernelBusy("the kernel started running a cell; the probe is queued") from exc
            raise
        result: dict[str, Any] = reply["content"]
        return result

    # ---------------------------------------------------------------- incoming messages

    def _on_message(self, channel: str, message: Message) -> None:
        self._check_kernel_session(message)
        if self._died:
            self._revive()  # the same kernel speaks again (a new one was handled above)
        if channel == "iopub":
            self._iopub_ready.set()
            self._activity.on_iopub(message)

    def _check_kernel_session(self, message: Message) -> None:
        session_id = (message.get("header") or {}).get("session")
        if not session_id:
            return
        if self.kernel_session is None:
            self.kernel_session = session_id
        elif session_id != self.kernel_session:
            self.kernel_session = session_id
            self._on_restart()

    def _on_restart(self) -> None:
        """A new kernel process: drop every cached fact about the old one."""
        self.pid = None
        self._last_listing = None
        self._died = False
        self._activity.reset("idle")
        self._emit(KernelRestarted())
        self._spawn(self._refresh_pid(1.0))

    def _revive(self) -> None:
        self._died = False
        self._activity.set_state("idle")

    def _spawn(self, coroutine: Any) -> None:
        """Run a background request; its failure is logged, never raised."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("kernel background request failed: %s", task.exception())

    # ---------------------------------------------------------------- heartbeat

    async def _beat(self) -> None:
        """While someone listens: a control bookkeeping request each interval; gone or silent =
        dead."""
        misses = 0
        while not self._closed:
            await asyncio.sleep(self.heartbeat_interval)
            timeout = min(2.0, max(0.2, self.heartbeat_interval))
            try:
                await self.bookkeeping("control", timeout=timeout)
            except KernelTimeout:
                misses += 1
                # A cell holding the GIL in C can silence control for a while: be patient then.
                patience = 6 if self.state == "busy" else 2
                if self._died:
                    continue
                check_alive = getattr(self._router, "check_alive", None)
                if check_alive is not None:  # a remote kernel: does its server still have it?
                    try:
                        await check_alive(2.0)
                    except KernelNotFound as exc:
                        self._mark_dead(str(exc))
                        return
                if not self._process_alive():
                    self._mark_dead("the kernel process is gone")
                elif misses >= patience:
                    self._mark_dead("the kernel stopped answering")
                continue
            except KernelNotFound:
                # a remote kernel whose server no longer has it, or a server gone for good
                gone = getattr(self._router, "gone", None)
                if gone is None:
                    continue
                if not self._died:
                    self._mark_dead(str(gone))
                return
            misses = 0

    def _process_alive(self) -> bool:
        if self.pid is None or not self._local:
            return True
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            return True
        status = Path(f"/proc/{self.pid}/stat")
        with contextlib.suppress(OSError, IndexError):
            return status.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        return True

    def process_exited(self, code: int | None) -> None:
        """The kernel process crane started exited: dead now, and waiting requests fail."""
        if self._closed:
            return
        reason = "the kernel process exited" + (f" with status {code}" if code is not None else "")
        self._exited = reason
        self._router.fail_pending(KernelDiedError(reason))
        if not self._died:
            self._mark_dead(reason)

    def _mark_dead(self, reason: str) -> None:
        self._died = True
        self._activity.reset("dead")
        self._emit(KernelDied(reason=reason))
