"""Decode the server's settings; a bad value falls back to its default with a warning."""

from __future__ import annotations

from typing import Any

import msgspec

from crane_server.protocol.lsp import ServerSettings

_FIELDS = set(ServerSettings.__struct_fields__)


def _unwrap(raw: Any) -> Any:
    """Accept `{...}`, `{"crane": {...}}` and `{"settings": {"crane": {...}}}`."""
    while isinstance(raw, dict) and not (_FIELDS & raw.keys()):
        inner = raw.get("crane", raw.get("settings"))
        if not isinstance(inner, dict):
            break
        raw = inner
    return raw


def decode_settings(raw: Any) -> tuple[ServerSettings, list[str]]:
    """Return the settings and a warning for every value that was ignored."""
    raw = _unwrap(raw)
    if raw is None:
        return ServerSettings(), []
    if not isinstance(raw, dict):
        return ServerSettings(), [f"crane settings must be an object, not {type(raw).__name__}"]
    try:
        return msgspec.convert(raw, ServerSettings), []
    except msgspec.ValidationError:
        pass
    kept: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in raw.items():
        if key not in _FIELDS:
            continue
        try:
            msgspec.convert({key: value}, ServerSettings)
        except msgspec.ValidationError as exc:
            warnings.append(f"ignored crane setting {key!r}: {exc}")
        else:
            kept[key] = value
    return msgspec.convert(kept, ServerSettings), warnings
