"""Silence library code the probe calls: warnings and prints never reach the user's output."""

import contextlib
import io
import warnings
from typing import Iterator


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence warnings and prints of library code evaluated by the checker."""
    sink = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            yield
