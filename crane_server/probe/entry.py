"""The one function the daemon calls in the kernel: dispatch(op, payload_json)."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Callable, Dict

from . import checker, summarise
from .jsonsafe import JsonResult


def _execution_count() -> Any:
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None:
        return None
    shell = ipython_module.get_ipython()
    return getattr(shell, "execution_count", None)


def _ping(payload: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "pid": os.getpid(),
        "python": sys.version.split()[0],
        "implementation": sys.implementation.name,
        "execution_count": _execution_count(),
    }


OPS: Dict[str, Callable[[Dict[str, Any]], Any]] = {
    "ping": _ping,
    "summarise": summarise.summarise_request,
    "check": checker.check_request,
}


def dispatch(op: str, payload_json: str) -> JsonResult:
    """Run one probe operation; errors come back as {"error": ...}, never as a traceback."""
    started = time.perf_counter()
    try:
        payload = json.loads(payload_json)
        result = OPS[op](payload)
        if isinstance(result, dict):
            result.setdefault("execution_count", _execution_count())
            result["elapsed_ms"] = (time.perf_counter() - started) * 1000.0
        return JsonResult(result)
    except Exception as exc:  # the probe must never raise into the kernel
        return JsonResult({"error": "%s: %s" % (type(exc).__name__, exc)})
