"""Ship the kernel-side probe as one silent `user_expressions` expression and read its JSON.

The probe package is installed once per kernel under the private `_crane_probe` prefix of
`sys.modules` (re-installed when its source changes, detected by a hash); every request is
then a single expression evaluated by IPython with `code=""`, `silent=True` and
`store_history=False`, which leaves the namespace, `_`, `Out`, history and the execution
count untouched.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources
from importlib.abc import Traversable
from typing import Any

from crane_server.errors import ProbeError
from crane_server.probe.manifest import SHIPPED_MODULES

PROBE_KEY = "_crane_probe"
EXPRESSION_NAME = "crane"

# Runs in a fresh globals dict (never the user namespace). Creates the package module and
# its submodules under PROBE_KEY, executing each in dependency order.
_BOOTSTRAP = """
import sys
_ModuleType = type(sys)
_pkg = _ModuleType(KEY)
_pkg.__path__ = []
_pkg.__package__ = KEY
_pkg.VERSION = VERSION
_installed = {KEY: _pkg}
for _name, _source in SOURCES:
    _parts = _name.split(".")
    for _depth in range(1, len(_parts)):
        _room = KEY + "." + ".".join(_parts[:_depth])
        if _room not in _installed:
            _sub = _ModuleType(_room)
            _sub.__path__ = []
            _sub.__package__ = _room
            _installed[_room] = _sub
    _mod = _ModuleType(KEY + "." + _name)
    _mod.__package__ = (KEY + "." + _name).rpartition(".")[0]
    _mod.__file__ = "<crane-probe:" + _name + ">"
    _installed[KEY + "." + _name] = _mod
for _old in [k for k in sys.modules if k == KEY or k.startswith(KEY + ".")]:
    del sys.modules[_old]
sys.modules.update(_installed)
try:
    for _name, _source in SOURCES:
        _mod = _installed[KEY + "." + _name]
        exec(compile(_source, _mod.__file__, "exec"), _mod.__dict__)
        _parent, _, _leaf = (KEY + "." + _name).rpartition(".")
        setattr(_installed[_parent], _leaf, _mod)
    for _room, _sub in _installed.items():
        if _room.count(".") == 1 and _room != KEY and hasattr(_sub, "__path__"):
            setattr(_pkg, _room.rpartition(".")[2], _sub)
except BaseException:
    for _k in _installed:
        sys.modules.pop(_k, None)
    raise
"""


def _module_file(package: Traversable, name: str) -> Traversable:
    """The source file of a shipped module ("rules.pandas" -> rules/pandas.py)."""
    *rooms, leaf = name.split(".")
    for room in rooms:
        package = package.joinpath(room)
    return package.joinpath(f"{leaf}.py")


@lru_cache(maxsize=1)
def probe_sources() -> tuple[tuple[str, str], ...]:
    """The shipped modules' (name, source) pairs, read from the installed package."""
    package = resources.files("crane_server.probe")
    return tuple(
        (name, _module_file(package, name).read_text(encoding="utf-8")) for name in SHIPPED_MODULES
    )


@lru_cache(maxsize=1)
def probe_version() -> str:
    digest = hashlib.sha256()
    for name, source in probe_sources():
        digest.update(name.encode())
        digest.update(source.encode())
    return digest.hexdigest()[:16]


def bootstrap_source() -> str:
    """The installer code (run with KEY, VERSION and SOURCES defined): also for helpers."""
    return _BOOTSTRAP


@lru_cache(maxsize=1)
def _install_call() -> str:
    env = {"KEY": PROBE_KEY, "VERSION": probe_version(), "SOURCES": probe_sources()}
    return f"exec({_BOOTSTRAP!r}, {{'__builtins__': __builtins__, **{env!r}}})"


def build_probe_expression(op: str, payload: dict[str, Any], *, install: bool = True) -> str:
    """One self-contained expression: install the probe if needed, then dispatch.

    With `install=False` the (large) probe source is not shipped: if the probe is missing
    the expression evaluates to None (see `probe_missing`) and the caller resends with it.
    """
    key = PROBE_KEY
    modules = "__import__('sys').modules"
    installed = (
        f"({key!r} in {modules} and "
        f"getattr({modules}[{key!r}], 'VERSION', None) == {probe_version()!r})"
    )
    call = f"{modules}[{key!r}].entry.dispatch({op!r}, {json.dumps(payload)!r})"
    if not install:
        return f"({call} if {installed} else None)"
    return f"({call} if {installed} else [{_install_call()}, {call}][1])"


def build_probe_content(
    op: str, payload: dict[str, Any], *, install: bool = True
) -> dict[str, Any]:
    """The content of the silent `execute_request` that carries one probe call."""
    return {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {EXPRESSION_NAME: build_probe_expression(op, payload, install=install)},
        "allow_stdin": False,
        "stop_on_error": False,
    }


def probe_missing(reply_content: dict[str, Any]) -> bool:
    """True when an `install=False` request found no (or another version of the) probe."""
    result = (reply_content.get("user_expressions") or {}).get(EXPRESSION_NAME)
    if not isinstance(result, dict) or result.get("status") != "ok":
        return False
    data = result.get("data") or {}
    return "application/json" not in data and data.get("text/plain") == "None"


def decode_probe_reply(reply_content: dict[str, Any]) -> Any:
    """Extract the probe's JSON from an `execute_reply` content; raise ProbeError otherwise."""
    expressions = reply_content.get("user_expressions") or {}
    result = expressions.get(EXPRESSION_NAME)
    if not isinstance(result, dict):
        raise ProbeError("the kernel did not return the probe's result")
    if result.get("status") != "ok":
        name = result.get("ename", "Error")
        value = result.get("evalue", "")
        raise ProbeError(f"the probe failed in the kernel: {name}: {value}")
    data = result.get("data") or {}
    if "application/json" not in data:
        raise ProbeError("the probe's result carried no application/json data")
    value = data["application/json"]
    if isinstance(value, str):  # some frontends/kernels serialise JSON as text
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ProbeError("the probe returned unreadable JSON") from exc
    if isinstance(value, dict) and "error" in value and len(value) <= 2:
        raise ProbeError(f"the probe reported: {value['error']}")
    return value
