"""Which names the user defined: the silent names expression and its reply.

The expression (shell, idle only) lists every name with its bare type name, read with
`type`'s own descriptor so that no metaclass `__name__` runs: it calls no user code. The
debugger's `inspectVariables` answers on control while busy but computes a repr of every
value (the user's `__repr__` runs): it is not used.
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

NAMES_EXPRESSION_KEY = "crane_names"
# Evaluated by IPython in the user namespace as a user_expression: no statement, no assignment.
# Names IPython put there itself (user_ns_hidden, same object) are left out. Builtins come
# from the `builtins` module, so a user's `type = "A"` does not break the listing.
NAMES_EXPRESSION = (
    "(lambda b: (lambda ip, tp, name: b.__import__('json').dumps("
    "{k: name(tp(v)) for k, v in ip.user_ns.items() "
    "if not (k in ip.user_ns_hidden and ip.user_ns_hidden[k] is v)}))"
    "(b.__import__('IPython').get_ipython(), b.type, b.vars(b.type)['__name__'].__get__))"
    "(__import__('builtins'))"
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
