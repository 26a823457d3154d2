"""Which names the user defined: parse `inspectVariables` replies and the silent names expression.

`inspectVariables` (control channel, no debugger start, also while busy) groups functions and
classes under "function variables" / "class variables", which cannot be expanded without a
started debugger, and it computes a repr of every value (user `__repr__` runs). The silent
names expression (shell, idle only) lists every name with its bare type name and calls no
user code. The session prefers the expression when the kernel is idle.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from crane_server.errors import ProbeError
from crane_server.protocol import NameInventory

_IPYTHON_NAMES = frozenset(
    {
        "In", "Out", "_", "__", "___", "_oh", "_dh", "_ih", "exit", "quit", "get_ipython",
        "__builtins__", "__builtin__", "__name__", "__doc__", "__package__", "__loader__",
        "__spec__", "__annotations__", "__display__", "__session__", "debugpy",
        "_exit_code",
    }
)  # fmt: skip
_IPYTHON_PATTERN = re.compile(r"^_i+\d*$|^_\d+$")
_DEBUGGER_GROUPS = frozenset({"special variables", "function variables", "class variables"})

NAMES_EXPRESSION_KEY = "crane_names"
# Evaluated by IPython in the user namespace as a user_expression: no statement, no assignment.
# Names IPython put there itself (user_ns_hidden, same object) are left out.
NAMES_EXPRESSION = (
    "(lambda ip: __import__('json').dumps({k: type(v).__name__ for k, v in ip.user_ns.items() "
    "if not (k in ip.user_ns_hidden and ip.user_ns_hidden[k] is v)}))"
    "(__import__('IPython').get_ipython())"
)


def is_user_name(name: str) -> bool:
    """False for IPython's own names (In, Out, _, _i3, exit, ...)."""
    return name not in _IPYTHON_NAMES and not _IPYTHON_PATTERN.match(name)


def names_request_content() -> dict[str, Any]:
    """The silent `execute_request` content that lists the user namespace."""
    return {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {NAMES_EXPRESSION_KEY: NAMES_EXPRESSION},
        "allow_stdin": False,
        "stop_on_error": False,
    }


def parse_names_reply(content: dict[str, Any]) -> NameInventory:
    """NameInventory from the reply to `names_request_content()`."""
    result = (content.get("user_expressions") or {}).get(NAMES_EXPRESSION_KEY)
    if not isinstance(result, dict) or result.get("status") != "ok":
        error = result.get("evalue", "") if isinstance(result, dict) else ""
        raise ProbeError(f"the kernel could not list its names {error}".rstrip())
    try:
        text = ast.literal_eval(result["data"]["text/plain"])
        names = json.loads(text)
    except (KeyError, TypeError, ValueError, SyntaxError) as exc:
        raise ProbeError("the kernel's list of names was unreadable") from exc
    if not isinstance(names, dict):
        raise ProbeError("the kernel's list of names was unreadable")
    return NameInventory(
        names={str(k): str(v) for k, v in names.items() if is_user_name(str(k))},
        source="probe",
    )


def parse_inspect_variables(content: dict[str, Any]) -> NameInventory:
    """NameInventory from a `debug_reply` to `inspectVariables` (functions/classes absent)."""
    if not content or not content.get("success"):
        message = content.get("message", "no debugger") if content else "no debugger"
        raise ProbeError(f"inspectVariables failed: {message}")
    variables = (content.get("body") or {}).get("variables") or []
    names: dict[str, str] = {}
    for variable in variables:
        if not isinstance(variable, dict):
            continue
        name = str(variable.get("name", ""))
        if name and name not in _DEBUGGER_GROUPS and is_user_name(name):
            names[name] = str(variable.get("type", ""))
    return NameInventory(names=names, source="inspectVariables")
