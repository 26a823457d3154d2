"""A hand-off: what the kernel packs for a helper interpreter when a cell first imports a
library (built by `probe/interpreter/handoff.py`, relayed by the daemon unchanged)."""

from __future__ import annotations

from typing import Any

import msgspec


class HandoffValue(msgspec.Struct, kw_only=True):
    """One name's shadow: a base64 pickle of library types only, with its true size."""

    pickle: str
    sampled: bool = False  # a head sample of a larger object ...
    rows: int | None = None  # ... whose true number of rows this is
    fake: bool = False


class HandoffContext(msgspec.Struct, kw_only=True):
    """Where the helper must stand: the kernel's interpreter, import path and folder."""

    executable: str
    sys_path: list[str] = msgspec.field(default_factory=list)
    cwd: str | None = None


class Handoff(msgspec.Struct, kw_only=True):
    code: str  # the cell as IPython transformed it
    offset: int = 0  # lines before `code` in the cell (a `%%time` line)
    modules: list[str]  # the library modules the cell imports that the kernel has not loaded
    module_names: dict[str, str] = msgspec.field(default_factory=dict)  # name -> module
    values: dict[str, HandoffValue] = msgspec.field(default_factory=dict)
    opaque: list[str] = msgspec.field(default_factory=list)  # names that exist, not handed
    # library settings that change results: sklearn config, changed pandas options, ...
    settings: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    context: HandoffContext
