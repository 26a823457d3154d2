"""The one function the daemon calls in the kernel: dispatch(op, payload_json)."""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from sys import getprofile, gettrace
from typing import Any, Callable, Dict, List

from . import genuine
from .imports import ImportGuard, is_standard_library
from .interpreter import checker, handoff
from .jsonsafe import JsonResult
from .quiet import no_warnings
from .snapshot import summarise
from .twin import control as twin_control


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
    # the dry run: fork a sealed twin of this kernel, collect its report, kill it
    "twin_start": twin_control.start_request,
    "twin_collect": twin_control.collect_request,
    "twin_kill": twin_control.kill_request,
}


# Packages whose import registers global state (ops, kernels): never unloaded again.
_NEVER_UNLOAD = frozenset({"torch", "tensorflow", "keras", "jax", "jaxlib"})


def _unload_new_submodules(before: "set[str]") -> None:
    """Undo the standard library modules the op imported (the ImportGuard refused any other).

    The user's namespace never sees them, and sys.modules is restored so the kernel is left
    as it was. A library module is never unloaded: numpy's extensions, for one, refuse to be
    initialised twice, so the user's own later import of an unloaded one fails.
    """
    new = set(sys.modules) - before
    if any(name.split(".", 1)[0] in _NEVER_UNLOAD for name in new):
        # torch imported submodules of its own (its meta-device decompositions import sympy,
        # ~470 modules). They stay, and so does what they import: unloading sympy left torch
        # holding modules the user's own `import` would load again as second copies, and
        # re-importing them on every check stalled the kernel 0.3-0.8 s per check.
        return
    for name in new:
        if name.startswith("_crane_probe") or not is_standard_library(name):
            continue
        module = sys.modules.pop(name, None)
        parent_name, _, child = name.rpartition(".")
        parent = sys.modules.get(parent_name)
        if parent is not None and getattr(parent, "__dict__", {}).get(child) is module:
            try:
                delattr(parent, child)
            except Exception:
                pass


class GlobalState:
    """Global state a library call could move: RNGs, warnings filters, the working directory.

    Saved before an operation and put back after it only where it changed, so a probe
    operation never leaves a trace even if some evaluated library code draws or chdirs.
    """

    def __init__(self) -> None:
        import random

        self.random = random.getstate()
        self.filters = list(warnings.filters)
        self.cwd = _cwd()
        # numpy loads numpy.random lazily: only a global RNG that exists is saved (touching
        # `np.random` would import it into the user's kernel)
        np_random = sys.modules.get("numpy.random")
        self.numpy = np_random.get_state(legacy=False) if np_random is not None else None
        torch = sys.modules.get("torch")
        self.torch = torch.get_rng_state() if torch is not None else None

    def restore(self) -> None:
        import random

        if random.getstate() != self.random:
            random.setstate(self.random)
        if warnings.filters != self.filters:
            warnings.filters[:] = self.filters  # type: ignore[index]
            mutated = getattr(warnings, "_filters_mutated", None)
            if callable(mutated):
                mutated()
        if self.cwd is not None and _cwd() != self.cwd:
            os.chdir(self.cwd)
        np_random = sys.modules.get("numpy.random")
        if np_random is not None and self.numpy is not None:
            now = np_random.get_state(legacy=False)
            if (
                now["state"]["key"].tobytes() != self.numpy["state"]["key"].tobytes()
                or any(now[k] != self.numpy[k] for k in ("has_gauss", "gauss"))
                or now["state"]["pos"] != self.numpy["state"]["pos"]
            ):
                np_random.set_state(self.numpy)
        torch = sys.modules.get("torch")
        if (
            torch is not None
            and self.torch is not None
            and not torch.equal(torch.get_rng_state(), self.torch)
        ):
            torch.set_rng_state(self.torch)


def _cwd() -> Any:
    try:
        return os.getcwd()
    except OSError:
        return None


def helper_walk(request: Dict[str, Any]) -> Dict[str, Any]:
    """In a helper interpreter (never a kernel): walk a cell the kernel handed off.

    The helper imports freely and keeps what it imported for the next cell; its random
    state, warnings and folder are its own, put back after the walk all the same.
    """
    started = time.perf_counter()
    state = GlobalState()
    try:
        imported = handoff.prepare_helper(request)
        namespace, tracked = handoff.namespace_of(request)
        with handoff.SettingsScope(request.get("settings") or {}):
            findings, errors, spent = checker.walk_prepared(
                str(request.get("code", "")), int(request.get("offset") or 0), namespace, tracked
            )
    except Exception as exc:
        return {"error": "%s: %s" % (type(exc).__name__, exc)}
    finally:
        state.restore()
    return {
        "findings": findings,
        "rule_errors": errors[:20],
        "budget_spent": spent,
        "imported": imported,
        "check_ms": (time.perf_counter() - started) * 1000.0,
    }


# Typed Any: called inside one tuple expression (see dispatch).
_setprofile: Any = sys.setprofile
_settrace: Any = sys.settrace


def dispatch(op: str, payload_json: str) -> JsonResult:
    """Run one probe operation; errors come back as {"error": ...}, never as a traceback.

    The user's profile and trace functions are suspended on this thread for the request (the
    first and the last line: they see this frame enter and return, and nothing inside it), and
    so are threading's hooks for threads started meanwhile; the very same objects are put back.
    """
    # one line, so that a trace function sees one line event of the probe
    profile, trace, _, _ = getprofile(), gettrace(), _setprofile(None), _settrace(None)
    hooks = _suspend_thread_hooks()
    try:
        return _dispatch(op, payload_json)
    finally:
        _restore_thread_hooks(hooks)
        _setprofile(profile)
        _settrace(trace)


# threading's hooks for threads it starts (threading.settrace / threading.setprofile)
_THREAD_HOOKS = ("_trace_hook", "_profile_hook")


def _suspend_thread_hooks() -> Dict[str, Any]:
    threading = sys.modules.get("threading")
    saved: Dict[str, Any] = {}
    if threading is None:
        return saved
    namespace = threading.__dict__
    for name in _THREAD_HOOKS:
        hook = namespace.get(name)
        if hook is not None:
            saved[name] = hook
            namespace[name] = None
    return saved


def _restore_thread_hooks(saved: Dict[str, Any]) -> None:
    threading = sys.modules.get("threading")
    if threading is None:
        return
    namespace = threading.__dict__
    for name, hook in saved.items():
        if namespace.get(name) is None:  # unless the user set another one meanwhile
            namespace[name] = hook


def _refusal(op: str, names: "list[str]") -> JsonResult:
    """The answer while builtins are replaced: a note for a check, an error for other ops.

    Built from literals and the probe's own names only (its builtins may be the user's when it
    was installed after the replacement).
    """
    shown = ", ".join(["builtins." + name for name in names[:5]])
    more = " and others" if names[5:] else ""
    message = (
        "not checked: %s%s replaced in this kernel; a check evaluates library code that "
        "would call the replacement" % (shown, more + (" are" if names[1:] else " is"))
    )
    if op == "ping":
        return JsonResult({"pid": os.getpid(), "refused": "builtins-replaced", "note": message})
    if op != "check":
        return JsonResult({"error": message, "refused": "builtins-replaced"})
    note = {
        "code": "crane-builtins-replaced",
        "exception": "",
        "message": message,
        "line": 1,
        "column": 0,
        "severity": "information",
        "source": "crane",
        "fix": "put the original builtins back (or restart the kernel) to check cells again",
        "replacements": [],
    }
    return JsonResult(
        {
            "findings": [note],
            "rule_errors": [],
            "budget_spent": False,
            "refused": "builtins-replaced",
        }
    )


# check_many answers cells until this much time went by, then the daemon asks for the rest:
# a user's run waits behind one batch at most this long plus one cell's own budget.
BATCH_BUDGET_S = 0.1


def _dispatch(op: str, payload_json: str) -> JsonResult:
    if op != "check_many":
        return _dispatch_one(op, lambda: json.loads(payload_json))
    try:
        payload = json.loads(payload_json)
        sources = payload["sources"]
        handoff = bool(payload.get("handoff"))
    except Exception as exc:  # the probe must never raise into the kernel
        return JsonResult({"error": "%s: %s" % (type(exc).__name__, exc)})
    started = time.perf_counter()
    results: List[Any] = []
    for source in sources:
        # each cell as its own check: the same guards and the same restore as one request
        request = {"source": source, "handoff": handoff}
        one = _dispatch_one("check", request.copy)
        results.append(one.value)
        if time.perf_counter() - started >= BATCH_BUDGET_S:
            break
    return JsonResult({"results": results, "execution_count": _execution_count()})


def _dispatch_one(op: str, read_payload: Callable[[], Any]) -> JsonResult:
    """One op under the probe's guards; `read_payload` is called inside them (a payload that
    does not parse is an error answer, after the builtins check as always)."""
    replaced = genuine.replaced()
    if replaced:
        return _refusal(op, replaced)
    started = time.perf_counter()
    before = set(sys.modules)
    state = GlobalState()
    main_registry = _main_registry()
    try:
        payload = read_payload()
        try:
            with no_warnings(), ImportGuard():
                result = OPS[op](payload)
        finally:
            state.restore()
            _unload_new_submodules(before)
            _forget_new_registry(main_registry)
        if isinstance(result, dict):
            result.setdefault("execution_count", _execution_count())
            result["elapsed_ms"] = (time.perf_counter() - started) * 1000.0
        return JsonResult(result)
    except Exception as exc:  # the probe must never raise into the kernel
        return JsonResult({"error": "%s: %s" % (type(exc).__name__, exc)})


def _main_registry() -> Any:
    """The user namespace's `__warningregistry__` (or None): a warning attributed to a frame of
    the user namespace creates one even when it is ignored."""
    main = sys.modules.get("__main__")
    namespace = getattr(main, "__dict__", None)
    return namespace.get("__warningregistry__") if isinstance(namespace, dict) else None


def _forget_new_registry(before: Any) -> None:
    if before is not None:
        return
    main = sys.modules.get("__main__")
    namespace = getattr(main, "__dict__", None)
    if isinstance(namespace, dict) and namespace.get("__warningregistry__") == {}:
        del namespace["__warningregistry__"]
