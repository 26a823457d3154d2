"""Decode the server's settings: camelCase or snake_case keys; a bad value falls back to its
default with a warning, as does an unknown key."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from crane_server.protocol.lsp import LlmOptions, ServerSettings


def _spellings(struct: type[msgspec.Struct]) -> dict[str, str]:
    """{accepted key: wire key}: the camelCase wire name and the snake_case field name."""
    names = dict(zip(struct.__struct_fields__, struct.__struct_encode_fields__, strict=True))
    return {**{wire: wire for wire in names.values()}, **names}


_KEYS = _spellings(ServerSettings)
_LLM_KEYS = _spellings(LlmOptions)
_CONSTRAINT = re.compile(r" - at `\$[^`]*`$")


def _unwrap(raw: Any) -> Any:
    """Accept `{...}`, `{"crane": {...}}` and `{"settings": {"crane": {...}}}`."""
    while isinstance(raw, dict) and not (_KEYS.keys() & raw.keys()):
        inner = raw.get("crane", raw.get("settings"))
        if not isinstance(inner, dict):
            break
        raw = inner
    return raw


def _why(exc: msgspec.ValidationError) -> str:
    return _CONSTRAINT.sub("", str(exc))


def _group(
    raw: dict[str, Any], keys: dict[str, str], struct: type[msgspec.Struct], prefix: str
) -> tuple[dict[str, Any], list[str]]:
    """The valid entries of `raw` under their wire keys, and a warning for every other one."""
    kept: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in raw.items():
        wire = keys.get(key) if isinstance(key, str) else None
        if wire is None:
            warnings.append(f"crane: unknown setting '{prefix}{key}' ignored")
            continue
        if wire == "llm" and struct is ServerSettings:
            if not isinstance(value, dict):
                warnings.append("crane: setting 'llm' must be an object; defaults used")
                continue
            value, more = _group(value, _LLM_KEYS, LlmOptions, "llm.")
            warnings.extend(more)
        try:
            msgspec.convert({wire: value}, struct)
        except msgspec.ValidationError as exc:
            try:
                # a server entry may hold what should have been a token: never echo it
                shown = "[...]" if wire == "servers" else msgspec.json.encode(value).decode()[:60]
            except (TypeError, msgspec.EncodeError):
                shown = type(value).__name__
            warnings.append(
                f"crane: setting {prefix}{wire} = {shown} ignored ({_why(exc)}); default used"
            )
        else:
            kept[wire] = value
    return kept, warnings


def decode_settings(raw: Any) -> tuple[ServerSettings, list[str]]:
    """Return the settings and a warning for every key or value that was ignored."""
    raw = _unwrap(raw)
    if raw is None:
        return ServerSettings(), []
    if not isinstance(raw, dict):
        return ServerSettings(), [f"crane settings must be an object, not {type(raw).__name__}"]
    kept, warnings = _group(raw, _KEYS, ServerSettings, "")
    return msgspec.convert(kept, ServerSettings), warnings
