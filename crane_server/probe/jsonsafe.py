"""Turn results into JSON that IPython ships under application/json."""

from __future__ import annotations

from typing import Any


class JsonResult:
    """Wraps a JSON-able value so that IPython's formatter emits it as application/json."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def _repr_json_(self) -> Any:
        return self.value

    def __repr__(self) -> str:
        # IPython also formats text/plain for every user expression: keep that free.
        return "<crane probe result>"
