"""One AsyncKernelClient, one reader task per channel, replies routed to futures by parent id."""

from __future__ import annotations

import asyncio
import logging
import queue
from collections.abc import Callable
from typing import Any

import zmq.asyncio
from jupyter_client.asynchronous.client import AsyncKernelClient

from crane_server.errors import KernelTimeout
from crane_server.protocol.jupyter_sessions import KERNEL_CLIENT_USERNAME

log = logging.getLogger(__name__)

Message = dict[str, Any]
MessageHandler = Callable[[str, Message], None]

CHANNELS = ("shell", "control", "iopub")
READ_WAKEUP_S = 2.0


class ChannelRouter:
    """Owns the zmq sockets of one kernel; never blocks the event loop."""

    def __init__(self, connection_info: dict[str, Any], on_message: MessageHandler) -> None:
        # One zmq context (one IO thread) for every kernel of the process.
        self._client = AsyncKernelClient(context=zmq.asyncio.Context.instance())
        self._client.load_connection_info(connection_info)  # type: ignore[arg-type]
        self._client.session.username = KERNEL_CLIENT_USERNAME  # marks crane's requests
        self._on_message = on_message
        self._pending: dict[str, asyncio.Future[Message]] = {}
        self._readers: list[asyncio.Task[None]] = []
        self._closed = False

    def start(self) -> None:
        """Connect shell, control and iopub (no stdin, no heartbeat thread) and start readers."""
        self._client.start_channels(shell=True, iopub=True, stdin=False, hb=False, control=True)
        for name in CHANNELS:
            channel = getattr(self._client, f"{name}_channel")
            task = asyncio.create_task(self._read(name, channel), name=f"crane-kernel-{name}")
            self._readers.append(task)

    def new_message(self, msg_type: str, content: dict[str, Any]) -> Message:
        message: Message = self._client.session.msg(msg_type, content)
        return message

    def send(self, channel: str, message: Message) -> asyncio.Future[Message]:
        """Send and return the future of its reply (on the same channel)."""
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[message["header"]["msg_id"]] = future
        getattr(self._client, f"{channel}_channel").send(message)
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
        msg_id = message["header"]["msg_id"]
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError as exc:
            raise KernelTimeout(
                f"the kernel did not answer {message['header']['msg_type']} within {timeout:g} s"
            ) from exc
        finally:
            self._pending.pop(msg_id, None)

    async def _read(self, name: str, channel: Any) -> None:
        while not self._closed:
            try:
                # A bounded wait: with many requests in flight on one socket, zmq's
                # edge-triggered wake-up can be missed; the next wait sees what is queued.
                message: Message = await channel.get_msg(timeout=READ_WAKEUP_S)
            except queue.Empty:
                continue
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # bad signature, truncated frames, closed socket
                if self._closed:
                    return
                log.debug("dropping unreadable %s message: %s", name, exc)
                continue
            if name != "iopub":
                parent_id = (message.get("parent_header") or {}).get("msg_id")
                future = self._pending.pop(parent_id, None) if parent_id else None
                if future is not None and not future.done():
                    future.set_result(message)
            try:
                self._on_message(name, message)
            except Exception:
                log.exception("kernel message handler failed")

    def fail_pending(self, error: Exception) -> None:
        """Every request waiting for a reply fails now with `error` (the kernel is gone)."""
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)

    async def close(self) -> None:
        """Cancel the readers, fail pending requests and close the sockets."""
        if self._closed:
            return
        self._closed = True
        await stop_tasks_and_waiters(self._readers, self._pending)
        self._client.stop_channels()


async def stop_tasks_and_waiters(
    tasks: list[asyncio.Task[None]], pending: dict[str, asyncio.Future[Message]]
) -> None:
    """Cancel a transport's tasks and every request still waiting for its reply."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for future in pending.values():
        if not future.done():
            future.cancel()
    pending.clear()
