"""The one place secrets are removed from text that leaves the LLM tier.

Some endpoints and proxies echo the API key or the Authorization header in an error body;
`redact` removes, from any text: the keys crane was configured with (`remember_secret`),
the value of every environment variable whose name ends in KEY, TOKEN or SECRET, Bearer
tokens, `sk-...` keys and passwords in URLs. The LLM client applies it to every error and
reply before they leave it; `RedactingFilter` applies it to log records (tracebacks too).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping

MASK = "[redacted]"
#: Shorter values are not treated as secrets: masking "1" or "true" would garble any text.
MIN_SECRET_LENGTH = 8
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET)$", re.IGNORECASE)
_SHAPES = (
    # long enough for real credentials, short ones ("bearer tokens", "sk-learn") stay
    re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{10,}"),
    re.compile(r"\bsk-[A-Za-z0-9_-]{20,}"),
    re.compile(r"(?i)(://)[^/\s:@]+:[^/\s@]+@"),  # https://user:password@host
)
_REPLACEMENTS = (rf"\1 {MASK}", MASK, rf"\1{MASK}@")

_known: set[str] = set()
_known_lock = threading.Lock()


def remember_secret(value: str | None) -> None:
    """Redact `value` from now on (a configured API key)."""
    if value and len(value.strip()) >= MIN_SECRET_LENGTH:
        with _known_lock:
            _known.add(value.strip())


def environment_secrets(environ: Mapping[str, str] | None = None) -> set[str]:
    """Values of the variables whose names end in KEY, TOKEN or SECRET."""
    env = os.environ if environ is None else environ
    return {
        value.strip()
        for name, value in env.items()
        if _SECRET_NAME.search(name) and len(value.strip()) >= MIN_SECRET_LENGTH
    }


def redact(text: str, extra: Iterable[str] = ()) -> str:
    """`text` with every known secret and secret-shaped token replaced by a mask."""
    if not text:
        return text
    with _known_lock:
        secrets = set(_known)
    secrets |= environment_secrets()
    secrets.update(s for s in extra if s and len(s) >= MIN_SECRET_LENGTH)
    for secret in sorted(secrets, key=len, reverse=True):  # a key inside a longer one
        text = text.replace(secret, MASK)
    for pattern, replacement in zip(_SHAPES, _REPLACEMENTS):
        text = pattern.sub(replacement, text)
    return text


class RedactedCause(Exception):
    """Stands in for a foreign exception whose text may hold a secret: its redacted text."""

    @classmethod
    def of(cls, exc: BaseException) -> RedactedCause:
        name = f"{type(exc).__module__}.{type(exc).__qualname__}"
        return cls(redact(f"{name}: {exc}"))


class RedactingFilter(logging.Filter):
    """Redact a record's message, arguments and traceback text before any handler writes it."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: leave it for the formatter to report
            return True
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def install_log_redaction(logger: logging.Logger | None = None) -> None:
    """Put a RedactingFilter on every handler of `logger` (default: the root's, lastResort)."""
    target = logger or logging.getLogger()
    handlers = list(target.handlers)
    if logger is None and logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
