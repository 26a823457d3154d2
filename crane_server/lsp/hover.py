"""Hover on a name: its runtime summary from the live kernel."""

from __future__ import annotations

import re

import msgspec
from lsprotocol import types

from crane_server.errors import CraneError, KernelBusy
from crane_server.kernels.session import KernelSession
from crane_server.protocol import CheckResult, RuntimeSnapshot, VariableSummary

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
MAX_COLUMNS_SHOWN = 20


def name_at(line: str, character: int) -> str | None:
    """Return the root name of the (dotted) identifier under `character`."""
    for match in _IDENTIFIER.finditer(line):
        if match.start() <= character <= match.end():
            dotted = _DOTTED.search(line[: match.end()])
            return dotted.group(1) if dotted else match.group(0)
    return None


def render_summary(summary: VariableSummary) -> str:
    """Markdown for one variable: type, shape, columns, dtype, fitted state."""
    lines = [f"**{summary.name}**: `{summary.type}`"]
    if summary.shape is not None:
        lines.append(
            "shape: `(" + ", ".join("?" if s is None else str(s) for s in summary.shape) + ")`"
        )
    elif summary.length is not None:
        lines.append(f"length: {summary.length}")
    if summary.columns is not None:
        shown = summary.columns[:MAX_COLUMNS_SHOWN]
        total = summary.columns_total or len(summary.columns)
        more = f" … ({total} in all)" if total > len(shown) else ""
        lines.append("columns: " + ", ".join(f"`{c}`" for c in shown) + more)
    if summary.dtype is not None:
        lines.append(f"dtype: `{summary.dtype}`")
    if summary.device is not None:
        lines.append(f"device: `{summary.device}`")
    if summary.fitted is not None:
        lines.append("fitted: yes" if summary.fitted else "fitted: **no**")
    if summary.error:
        lines.append(f"_{summary.error}_")
    return "  \n".join(lines)


async def hover_name(session: KernelSession, name: str, *, timeout: float) -> str | None:
    """The hover text for `name`, or None when the kernel does not define it."""
    try:
        raw = await session.run_probe(
            "summarise", {"names": [name], "categories": ["S", "R"]}, timeout=timeout
        )
        snapshot = msgspec.convert(raw, RuntimeSnapshot)
    except KernelBusy:
        try:
            inventory = await session.inventory(timeout=timeout)
        except KernelBusy:  # a cell ended since the names were listed: nothing to stand on
            return None
        kind = inventory.names.get(name)
        return None if kind is None else f"**{name}**: `{kind}` _(kernel busy: type only)_"
    except (CraneError, msgspec.ValidationError):
        return None
    summary = snapshot.variables.get(name)
    return None if summary is None else render_summary(summary)


def dry_run_note(result: CheckResult | None) -> str | None:
    """One line on what the dry run did for this cell, when it did not settle it."""
    dry = None if result is None else result.dry_run
    if dry is None or dry.outcome in ("raised", "off"):
        return None
    if dry.outcome == "clean":
        return "_dry run: the cell ran clean on a sealed copy of the kernel_"
    if dry.outcome == "unavailable":
        return f"_no dry run in this kernel: {dry.reason}_"
    return f"_dry run: unknown ({dry.reason}); the checker's verdict stands_"


LIVE_STATE_NOTE = (
    "_the kernel's state was not built by this notebook's cells (none of them is known to "
    "have run in it): every cell is judged against the kernel's live state, none ahead_"
)


def markdown(text: str, where: types.Range | None = None) -> types.Hover:
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=where
    )
