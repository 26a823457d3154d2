"""Silence library code the probe calls: warnings and prints never reach the user's output."""

import contextlib
import io
import warnings
from typing import Any, Iterator

# One filter that drops every warning before it is shown or written to a registry.
_DROP_ALL = ("ignore", None, Warning, None, 0)


@contextlib.contextmanager
def no_warnings() -> Iterator[None]:
    """Drop every warning raised inside, leaving the filters and registries as they were.

    The filters list is swapped for one that ignores everything and the very same list object
    is put back after. `warnings.catch_warnings` is not used: entering and leaving it bumps the
    interpreter's filters version, which makes every module's `__warningregistry__` stale, so a
    warning the user had already been shown once would be shown again after a check. An ignored
    warning is neither shown nor registered (the registry's version is not moved either).
    """
    module: Any = warnings
    saved = module.filters
    module.filters = [_DROP_ALL]
    try:
        yield
    finally:
        module.filters = saved


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence warnings and prints of library code evaluated by the checker."""
    sink = io.StringIO()
    with no_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield
