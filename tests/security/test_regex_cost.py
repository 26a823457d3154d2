"""A regular expression whose matching time cannot be bounded is never run by a check: C code
holds the GIL, so no Python-level budget could stop it (issue: 4.7 s at 26 characters)."""

from __future__ import annotations

import re

import pytest

from crane_server.probe import cost
from tests.conftest import RunningKernel
from tests.probe.kernel_probe import run_probe


@pytest.mark.parametrize(
    ("pattern", "linear"),
    [
        pytest.param(r"foo", True, id="literal"),
        pytest.param(r"\d+", True, id="one repeat"),
        pytest.param(r"[A-Z]{2,3}\d{4}", True, id="bounded repeats"),
        pytest.param(r"(ab|cd)", True, id="alternation outside a repeat"),
        pytest.param(r"x(?:ab)+y", True, id="a repeated literal group"),
        pytest.param(r"(a+)+$", False, id="nested repeat (the reported stall)"),
        pytest.param(r"(a*)*", False, id="nested star"),
        pytest.param(r"(a|aa)*", False, id="alternation inside a repeat"),
        pytest.param(r"(\w+)\s\1", False, id="backreference"),
        pytest.param(r"(?=a)b", False, id="lookahead"),
        pytest.param(r".*a.*b", False, id="two unbounded repeats (polynomial)"),
        pytest.param(r"(", False, id="not a pattern"),
        pytest.param(12, False, id="not a string"),
    ],
)
def test_pattern_is_linear(pattern: object, linear: bool) -> None:
    assert cost.pattern_is_linear(pattern) is linear


def test_the_calls_that_match_are_recognised() -> None:
    import pandas as pd

    s = pd.Series(["a"])
    assert cost.regex_too_costly(s.str.contains, [r"(a+)+$"], {})
    assert cost.regex_too_costly(s.str.extract, [], {"pat": r"(a|aa)*"})
    assert cost.regex_too_costly(re.search, [r"(a+)+$", "x"], {})
    assert cost.regex_too_costly(re.compile(r"(a+)+").fullmatch, ["x"], {})
    frame = pd.DataFrame({"a": [1]})
    assert cost.regex_too_costly(frame.filter, [], {"regex": r"(a+)+"})
    assert cost.regex_too_costly(s.replace, [r"(a+)+"], {"regex": True})
    assert not cost.regex_too_costly(s.str.contains, ["abc"], {})
    assert not cost.regex_too_costly(s.replace, ["(a+)+", "b"], {})  # a literal replace
    assert not cost.regex_too_costly(len, ["x"], {})


@pytest.mark.kernel
def test_a_catastrophic_pattern_on_live_data_is_never_matched(kernel: RunningKernel) -> None:
    # 40 characters: hours of backtracking if the check ran it (the test's timeout fails first)
    setup = "import pandas as pd\ns = pd.Series(['a' * 40 + '!', 'b'])"
    assert kernel.execute(setup)["status"] == "ok"
    slow, _ = run_probe(kernel, "check", {"source": "s[s.str.contains(r'(a+)+$')]['zz']"})
    assert slow["findings"] == []  # unknown: nothing claimed
    # control: the same cell with a linear pattern is evaluated, and its crash is found
    fast, _ = run_probe(kernel, "check", {"source": "s[s.str.contains('a')]['zz']"})
    assert [f["exception"] for f in fast["findings"]] == ["KeyError"]
