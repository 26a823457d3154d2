"""The progress bar: drawn with an ETA on a terminal, silent otherwise."""

from __future__ import annotations

import io

from crane_server.eval.progress import ProgressBar, format_duration


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_with_eta_on_a_terminal() -> None:
    stream = Terminal()
    bar = ProgressBar(4, stream=stream)
    bar.advance()
    bar.advance(error=True)
    text = stream.getvalue()
    assert "1/4" in text and "2/4, 1 errors ETA" in text
    bar.advance(2)
    bar.close()
    assert stream.getvalue().endswith("4/4, 1 errors elapsed 0:00\n")


def test_quiet_when_not_a_terminal() -> None:
    stream = io.StringIO()
    bar = ProgressBar(2, stream=stream)
    bar.advance(2)
    bar.close()
    assert stream.getvalue() == ""
    assert bar.done == 2


def test_format_duration() -> None:
    assert format_duration(59) == "0:59"
    assert format_duration(3725) == "1:02:05"
