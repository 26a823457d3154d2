"""The one owner of every background task of the server: names them, logs their failures."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Hashable
from typing import Any

log = logging.getLogger(__name__)


class TaskOwner:
    """Spawn background tasks; at most one task per key (a new one cancels the old)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._keyed: dict[Hashable, asyncio.Task[Any]] = {}

    def spawn(self, coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
        """Run `coro` in the background; its exception, if any, is logged, never raised."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def replace(
        self, key: Hashable, coro: Coroutine[Any, Any, Any], *, name: str
    ) -> asyncio.Task[Any]:
        """Cancel the task running under `key`, if any, and run `coro` in its place."""
        self.cancel(key)
        task = self.spawn(coro, name=name)
        self._keyed[key] = task
        task.add_done_callback(lambda done: self._forget(key, done))
        return task

    def cancel(self, key: Hashable) -> None:
        task = self._keyed.pop(key, None)
        if task is not None:
            task.cancel()

    def running(self, key: Hashable) -> bool:
        task = self._keyed.get(key)
        return task is not None and not task.done()

    async def close(self) -> None:
        """Cancel everything and wait for the tasks to finish."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._keyed.clear()

    def _forget(self, key: Hashable, done: asyncio.Task[Any]) -> None:
        if self._keyed.get(key) is done:
            del self._keyed[key]

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.error("background task %s failed", task.get_name(), exc_info=error)
