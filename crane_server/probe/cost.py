"""Costs that C code pays with the GIL held: what the checker's time budget cannot interrupt.

The walk's CPU budget is checked between Python steps; a regular expression match runs in C
and never yields to it. A backtracking pattern (`(a+)+$`) on 26 characters took the kernel
4.7 s, and each two more characters four times as long. So a call that matches a regular
expression against data is evaluated only when its pattern is provably linear-time for the
engine: no backreference, no lookaround, no repeat inside a repeat, no alternation inside a
repeat, and at most one unbounded repeat (two `.*` are already polynomial when searching).
Anything else, or a pattern that is not a plain string, makes the call unknown (the dry run's
twin, which runs under a budget the kernel enforces, can still see it).
"""

import re
from typing import Any, Dict, List, Optional

# pandas' `.str` methods whose `pat` is (or may be) a regular expression
_STR_REGEX_METHODS = frozenset(
    "contains match fullmatch extract extractall findall count replace split rsplit".split()
)
# the `re` module's functions, and compiled patterns' methods, that match
_RE_FUNCTIONS = frozenset("match fullmatch search sub subn split findall finditer".split())
# library methods that take a regular expression as a keyword
_REGEX_KEYWORDS = ("regex", "pat", "pattern")

_parser: Any = getattr(re, "_parser", None)
if _parser is None:  # Python < 3.11
    import sre_parse as _parser  # type: ignore[no-redef]


def regex_of_call(func: Any, args: List[Any], kwargs: Dict[str, Any]) -> Optional[Any]:
    """The regular expression a call would match with, or None when it matches none."""
    name = getattr(func, "__name__", "")
    owner = getattr(func, "__self__", None)
    owner_type = type(owner).__name__
    module = getattr(func, "__module__", "") or ""
    if isinstance(owner, re.Pattern) and name in _RE_FUNCTIONS:
        return owner
    if module == "re" and name in _RE_FUNCTIONS | {"compile"}:
        return args[0] if args else kwargs.get("pattern")
    if owner_type == "StringMethods" and name in _STR_REGEX_METHODS:
        return args[0] if args else kwargs.get("pat")
    if name in ("replace", "filter"):
        regex = kwargs.get("regex")
        if isinstance(regex, (str, bytes, re.Pattern)):
            return regex
        if regex is True:
            return args[0] if args else kwargs.get("to_replace")
    return None


def _linear(items: Any, inside_repeat: bool, unbounded: List[int]) -> bool:
    for op, value in items:
        name = str(op)
        if name in ("GROUPREF", "GROUPREF_EXISTS", "ASSERT", "ASSERT_NOT"):
            return False
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            _low, high, body = value
            if inside_repeat:
                return False
            if high == _parser.MAXREPEAT or high > 1000:
                unbounded[0] += 1
                if unbounded[0] > 1:
                    return False
            if not _linear(body, True, unbounded):
                return False
        elif name == "BRANCH":
            if inside_repeat:
                return False
            for branch in value[1]:
                if not _linear(branch, inside_repeat, unbounded):
                    return False
        elif name == "SUBPATTERN":
            if not _linear(value[-1], inside_repeat, unbounded):
                return False
        elif name == "ATOMIC_GROUP" and not _linear(value, inside_repeat, unbounded):
            return False
    return True


def pattern_is_linear(pattern: Any) -> bool:
    """Is matching this pattern linear in the input (conservatively: False when unsure)?"""
    if isinstance(pattern, re.Pattern):
        pattern = pattern.pattern
    if not isinstance(pattern, (str, bytes)) or len(pattern) > 1000:
        return False
    try:
        parsed = _parser.parse(pattern)
    except Exception:
        return False  # the real call raises re.error: the twin or the rules say so
    return _linear(list(parsed), False, [0])


def regex_too_costly(func: Any, args: List[Any], kwargs: Dict[str, Any]) -> bool:
    """Would this call run a regular expression whose cost cannot be bounded before it runs?"""
    try:
        pattern = regex_of_call(func, args, kwargs)
    except Exception:
        return True
    if pattern is None:
        return False
    return not pattern_is_linear(pattern)
