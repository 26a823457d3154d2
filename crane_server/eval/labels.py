"""Automatic diagnosis labels: does the predicted exception type and line match the case?"""

from __future__ import annotations

from crane_server.eval.cases import Case

LABELS: tuple[str, ...] = ("correct", "partially correct", "reasoning wrong", "wrong")


def exception_name(text: str | None) -> str | None:
    """`"pandas.errors.KeyError: 'x'"` -> `"KeyError"`; None for nothing usable."""
    if not text:
        return None
    head = text.strip().split(":", 1)[0].strip()
    name = head.rsplit(".", 1)[-1].strip()
    return name or None


def exception_right(case: Case, predicted: str | None) -> bool | None:
    """Whether the predicted exception type is the expected one; None if the case has none."""
    expected = exception_name(case.expected_exception)
    if expected is None:
        return None
    return exception_name(predicted) == expected


def line_right(case: Case, predicted: int | None) -> bool | None:
    """Whether the predicted line is on the crash's traceback; None if the case gives no line."""
    if not case.expected_lines:
        return None
    return predicted is not None and predicted in case.expected_lines


def auto_label(case: Case, exception: str | None, line: int | None) -> str | None:
    """`correct` (type and line), `partially correct` (one of them), `wrong`; None if unknown."""
    type_ok = exception_right(case, exception)
    line_ok = line_right(case, line)
    if type_ok is None or line_ok is None:
        return None
    if type_ok and line_ok:
        return "correct"
    if type_ok or line_ok:
        return "partially correct"
    return "wrong"
