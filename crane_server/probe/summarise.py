"""Summaries of named objects in the three CRANE categories (S, V, R)."""

from __future__ import annotations

from typing import Any, Dict


def summarise_request(payload: Dict[str, Any]) -> Dict[str, Any]:
    """payload: {"names": [...], "categories": ["S", "V", "R"]} -> RuntimeSnapshot JSON."""
    return {"variables": {}, "missing": list(payload.get("names", []))}
