"""Decode the server's settings: camelCase or snake_case keys; a bad value falls back to its
default with a warning, as does an unknown key."""

from __future__ import annotations

import math
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


def _why(exc: msgspec.ValidationError | UnicodeEncodeError) -> str:
    if isinstance(exc, UnicodeEncodeError):
        return "a string with a NUL or a lone surrogate"
    return _printable(_CONSTRAINT.sub("", str(exc)), 120)


def _printable(text: str, limit: int) -> str:
    """`text` on one short line: what does not print escaped, cut to `limit` characters."""
    cut = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text[: limit + 1])
    return cut if len(cut) <= limit else cut[: limit - 3] + "..."


def _encodable(text: str) -> bool:
    """True when `text` is valid Unicode (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(value: Any) -> str:
    """How a bad value is quoted in its warning: JSON, cut short, on one line."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # JSON would say null
    try:
        text = msgspec.json.encode(value).decode()
    except (TypeError, ValueError, msgspec.EncodeError):  # a lone surrogate: not UTF-8
        text = ascii(value)
    return _printable(text, 60)


def _group(
    raw: dict[str, Any], keys: dict[str, str], struct: type[msgspec.Struct], prefix: str
) -> tuple[dict[str, Any], list[str]]:
    """The valid entries of `raw` under their wire keys, and a warning for every other one."""
    kept: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in raw.items():
        wire = keys.get(key) if isinstance(key, str) else None
        if wire is None:
            name = _printable(str(key), 60)
            warnings.append(f"crane: unknown setting '{prefix}{name}' ignored")
            continue
        if wire == "llm" and struct is ServerSettings:
            if not isinstance(value, dict):
                warnings.append("crane: setting 'llm' must be an object; defaults used")
                continue
            value, more = _group(value, _LLM_KEYS, LlmOptions, "llm.")
            warnings.extend(more)
        try:
            if isinstance(value, str) and ("\x00" in value or not _encodable(value)):
                # a path or name that no file and no kernel can have (the kernel look-up
                # would fail deep inside, unreported)
                raise UnicodeEncodeError("utf-8", value, 0, 1, "a NUL or a lone surrogate")
            msgspec.convert({wire: value}, struct)
        except (msgspec.ValidationError, UnicodeEncodeError) as exc:
            # a server entry may hold what should have been a token: never echo it
            shown = "[...]" if wire == "servers" else _shown(value)
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
