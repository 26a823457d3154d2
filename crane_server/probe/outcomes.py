"""What a rule can answer about one operation, and the finding it turns into."""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Tuple


class Raise:
    """The operation will certainly raise `exception` with `message`."""

    def __init__(
        self,
        code: str,
        exception: str,
        message: str,
        facts: Optional[List[str]] = None,
        fix: Optional[str] = None,
        closest: Optional[str] = None,
        node: Optional[ast.AST] = None,
        replace_node: Optional[ast.AST] = None,
        replace_text: Optional[str] = None,
    ) -> None:
        self.code = code
        self.exception = exception
        self.message = message
        self.facts = facts or []
        self.fix = fix
        self.closest = closest
        self.node = node
        self.replace_node = replace_node
        self.replace_text = replace_text


class Result:
    """The rule computed the operation's value (a values.Val or values.UNKNOWN)."""

    def __init__(self, value: Any) -> None:
        self.value = value


class CallSite:
    """A call about to happen: the callee and the values of its arguments."""

    def __init__(
        self,
        node: ast.Call,
        func: Any,
        args: List[Any],
        kwargs: Dict[str, Any],
        has_star: bool,
        name: str,
    ) -> None:
        self.node = node
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.has_star = has_star
        self.name = name  # dotted text of the callee as written, for messages

    def arg(self, position: int, keyword: str) -> Any:
        """The argument passed at `position` or as `keyword` (None if absent)."""
        if keyword in self.kwargs:
            return self.kwargs[keyword]
        if position < len(self.args):
            return self.args[position]
        return None

    def arg_node(self, position: int, keyword: str) -> Optional[ast.AST]:
        for kw in self.node.keywords:
            if kw.arg == keyword:
                return kw.value
        if position < len(self.node.args):
            return self.node.args[position]
        return None


def char_column(line_text: str, byte_offset: int) -> int:
    """Convert an ast UTF-8 byte offset into a character offset on that line."""
    try:
        return len(line_text.encode("utf-8")[:byte_offset].decode("utf-8", "replace"))
    except Exception:
        return byte_offset


def _attribute_line(node: Any) -> Optional[Tuple[int, int]]:
    """Where Python 3.11+ puts a method call or attribute that spans lines: on the line of
    the attribute's name (`.mean()` of a chain written over several lines), not the first."""
    import sys

    if sys.version_info < (3, 11):
        return None
    attr = node.func if isinstance(node, ast.Call) else node
    if not isinstance(attr, ast.Attribute) or attr.end_lineno is None:
        return None
    if attr.end_lineno == getattr(node, "lineno", attr.end_lineno) or attr.end_col_offset is None:
        return None
    return attr.end_lineno, max(0, attr.end_col_offset - len(attr.attr))


def to_finding(outcome: Raise, node: ast.AST, lines: List[str], line_offset: int) -> Dict[str, Any]:
    """The Finding JSON (see crane_server/protocol/findings.py) for a certain raise."""
    where = outcome.node or node
    lineno = getattr(where, "lineno", 1)
    text = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
    column = char_column(text, getattr(where, "col_offset", 0))
    attribute = _attribute_line(where)
    if attribute is not None:
        lineno, column = attribute
        text = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
        column = char_column(text, column)
    end_lineno = getattr(where, "end_lineno", None) or lineno
    end_text = lines[end_lineno - 1] if 0 < end_lineno <= len(lines) else ""
    end_col = getattr(where, "end_col_offset", None)
    end_column = char_column(end_text, end_col) if end_col is not None else None
    finding: Dict[str, Any] = {
        "code": outcome.code,
        "exception": outcome.exception,
        "message": outcome.message,
        "line": lineno + line_offset,
        "column": column,
        "end_line": end_lineno + line_offset,
        "end_column": end_column,
        "severity": "error",
        "source": "crane",
        "evidence": {"facts": outcome.facts, "closest": outcome.closest},
        "fix": outcome.fix,
        "replacements": [],
    }
    target = outcome.replace_node
    if target is not None and outcome.replace_text is not None:
        r_line = getattr(target, "lineno", lineno)
        r_text = lines[r_line - 1] if 0 < r_line <= len(lines) else ""
        r_end_line = getattr(target, "end_lineno", r_line) or r_line
        r_end_text = lines[r_end_line - 1] if 0 < r_end_line <= len(lines) else ""
        finding["replacements"].append(
            {
                "line": r_line + line_offset,
                "column": char_column(r_text, getattr(target, "col_offset", 0)),
                "end_line": r_end_line + line_offset,
                "end_column": char_column(r_end_text, getattr(target, "end_col_offset", 0) or 0),
                "new_text": outcome.replace_text,
            }
        )
    return finding
