"""Findings shared by the rules of frame libraries beyond pandas (polars, Dask)."""

from __future__ import annotations

import ast
import inspect
from typing import Any, List, Optional, Sequence

from ..outcomes import Raise
from ..values import closest_name, preview


def has_static(cls: Any, name: str) -> bool:
    """Does the class define `name` (looked up on the class, never on an instance)?"""
    try:
        inspect.getattr_static(cls, name)
    except AttributeError:
        return False
    return True


def lone_literal(node: Any, value: str) -> Optional[ast.AST]:
    """The one string literal `value` inside node (none if absent or written twice)."""
    if node is None:
        return None
    hits = [s for s in ast.walk(node) if isinstance(s, ast.Constant) and s.value == value]
    return hits[0] if len(hits) == 1 else None


def missing_column_raise(
    code: str,
    exception: str,
    message: str,
    column: str,
    names: List[str],
    node: ast.AST,
    chk: Any,
    extra_facts: Sequence[str] = (),
) -> Raise:
    """A column that is not there, with the closest existing name as the quick fix."""
    closest = closest_name(column, names)
    facts = ["available columns (%d): %s" % (len(names), preview(names))] if names else []
    facts.extend(extra_facts)
    replace_node = None
    if closest is not None:
        facts.append("closest existing column: %r" % closest)
        replace_node = lone_literal(node, column) or lone_literal(
            getattr(chk, "tree", None), column
        )
    return Raise(
        code,
        exception,
        message,
        facts=facts,
        fix=("use %r" % closest) if closest is not None else "check the column name",
        closest=closest,
        node=node,
        replace_node=replace_node,
        replace_text=repr(closest) if replace_node is not None else None,
    )
