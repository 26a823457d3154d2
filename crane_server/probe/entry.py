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


# Packages whose import registers global state (ops, kernels): never unloaded again.
_NEVER_UNLOAD = frozenset({"torch", "tensorflow", "keras", "jax", "jaxlib"})


def _unload_new_submodules(before: "set[str]") -> None:
    """Undo lazy imports of submodules (e.g. numpy.rec) that library code did during the op.

    Library functions the checker evaluates may load a submodule of a package the user has
    already imported; the user's namespace never sees it, and sys.modules is restored so the
    kernel is left exactly as it was.
    """
    for name in set(sys.modules) - before:
        root = name.split(".", 1)[0]
        if name.startswith("_crane_probe") or root not in before or root in _NEVER_UNLOAD:
            continue
        module = sys.modules.pop(name, None)
        parent_name, _, child = name.rpartition(".")
        parent = sys.modules.get(parent_name)
        if parent is not None and getattr(parent, "__dict__", {}).get(child) is module:
            try:
                delattr(parent, child)
            except Exception:
                pass


def dispatch(op: str, payload_json: str) -> JsonResult:
    """Run one probe operation; errors come back as {"error": ...}, never as a traceback."""
    started = time.perf_counter()
    before = set(sys.modules)
    try:
        payload = json.loads(payload_json)
        try:
            result = OPS[op](payload)
        finally:
            _unload_new_submodules(before)
        if isinstance(result, dict):
            result.setdefault("execution_count", _execution_count())
            result["elapsed_ms"] = (time.perf_counter() - started) * 1000.0
        return JsonResult(result)
    except Exception as exc:  # the probe must never raise into the kernel
        return JsonResult({"error": "%s: %s" % (type(exc).__name__, exc)})
