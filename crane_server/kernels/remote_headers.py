"""Extra HTTP headers for a Jupyter Server: authentication that is not `token` (a Hub's
`Authorization: Bearer ...`, a proxy's access header) or anything the server's proxy needs.

They come from `--header 'Name: value'`, the environment variable CRANE_JUPYTER_HEADERS (a
JSON object), or the config file's `jupyter_servers[].headers`; the language server reads a
JSON object from the variable its `servers[].headersEnv` names. They are sent on every REST
request and on the websocket handshake. Like tokens, header values are never printed: an
error names the header, never its value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

from crane_server.errors import SettingsError

HEADERS_ENV = "CRANE_JUPYTER_HEADERS"
# RFC 9110 field names; values may not break the request (no CR, LF or NUL).
_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}")
_FORBIDDEN = ("\r", "\n", "\0")
# Headers the HTTP and websocket libraries set themselves.
_RESERVED = frozenset(
    {"host", "content-length", "connection", "upgrade", "sec-websocket-key",
     "sec-websocket-version", "sec-websocket-protocol", "sec-websocket-extensions"}
)  # fmt: skip
MAX_HEADERS = 32
MAX_VALUE = 8192

Headers = tuple[tuple[str, str], ...]


def checked_headers(pairs: Iterable[tuple[object, object]], where: str) -> Headers:
    """The pairs as headers, or SettingsError naming what is wrong (never a value)."""
    found: list[tuple[str, str]] = []
    for name, value in pairs:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise SettingsError(f"{where}: not an HTTP header name: {str(name)[:40]!r}")
        if name.lower() in _RESERVED:
            raise SettingsError(f"{where}: the header {name} is set by crane itself")
        if not isinstance(value, str) or len(value) > MAX_VALUE:
            raise SettingsError(f"{where}: the value of {name} must be a string of at most 8 KiB")
        if any(c in value for c in _FORBIDDEN):
            raise SettingsError(f"{where}: the value of {name} holds a line break")
        found.append((name, value))
    if len(found) > MAX_HEADERS:
        raise SettingsError(f"{where}: at most {MAX_HEADERS} headers")
    return tuple(found)


def headers_from_json(text: str, where: str) -> Headers:
    """A JSON object of headers (an environment variable's value)."""
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        raise SettingsError(f"{where} must hold a JSON object of headers") from exc
    if not isinstance(parsed, dict):
        raise SettingsError(f"{where} must hold a JSON object of headers")
    return checked_headers(parsed.items(), where)


def headers_from_options(options: Iterable[str]) -> Headers:
    """`--header 'Name: value'` options."""
    pairs = []
    for option in options:
        name, sep, value = option.partition(":")
        if not sep:
            raise SettingsError("--header takes 'Name: value'")
        pairs.append((name.strip(), value.strip()))
    return checked_headers(pairs, "--header")


def headers_from_mapping(mapping: object, where: str) -> Headers:
    """A config file's `headers` object."""
    if not isinstance(mapping, Mapping):
        raise SettingsError(f"{where}: 'headers' must be an object")
    return checked_headers(mapping.items(), where)


def has_authorization(headers: Headers) -> bool:
    return any(name.lower() == "authorization" for name, _ in headers)
