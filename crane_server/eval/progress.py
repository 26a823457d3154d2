"""A one-line progress bar with an ETA, drawn on stderr only when it is a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO


def format_duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class ProgressBar:
    """Counts finished jobs; silent unless `stream` is a TTY (or `enabled` forces it)."""

    def __init__(
        self, total: int, *, stream: TextIO | None = None, enabled: bool | None = None
    ) -> None:
        self.total = total
        self.done = 0
        self.errors = 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.started = time.monotonic()

    def render(self, width: int = 30) -> str:
        fraction = self.done / self.total if self.total else 1.0
        filled = int(width * fraction)
        elapsed = time.monotonic() - self.started
        if self.done and self.done < self.total:
            eta = f"ETA {format_duration(elapsed / self.done * (self.total - self.done))}"
        else:
            eta = f"elapsed {format_duration(elapsed)}"
        errors = f", {self.errors} errors" if self.errors else ""
        bar = "#" * filled + "-" * (width - filled)
        return f"[{bar}] {self.done}/{self.total}{errors} {eta}"

    def advance(self, count: int = 1, *, error: bool = False) -> None:
        self.done += count
        self.errors += count if error else 0
        if self.enabled:
            self.stream.write("\r" + self.render())
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + self.render() + "\n")
            self.stream.flush()
