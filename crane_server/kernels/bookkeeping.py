"""The requests crane sends for its own bookkeeping, chosen to run nothing in the user's process
that the user could notice.

`kernel_info_request` is not one of them: with IPython 9 the reply carries the banner, whose
tip IPython picks with `random.choice`, so every kernel_info advances the user's `random` state
(after `random.seed(0)`, the next `random.random()` changes). Measured on ipykernel 7.4 with
IPython 9.18: `comm_info_request`, `usage_request`, `is_complete_request` and
`connect_request` leave `random`, the namespace, history and execution count as they were;
`comm_info_request` answers on control while a cell runs, on the shell only when idle, and its
reply header carries the kernel's session id, which is how restarts are noticed.
What kernel_info used to tell (language, implementation) comes from one silent user expression
on an idle kernel instead.
"""

from __future__ import annotations

import ast
from typing import Any

# A target name no comm uses: the reply lists nothing, so it stays tiny.
BOOKKEEPING_REQUEST: tuple[str, dict[str, Any]] = (
    "comm_info_request",
    {"target_name": "crane.bookkeeping"},
)
_DESCRIBE_KEY = "crane_describe"
# `sys` is always loaded; nothing is imported, assigned or printed.
_DESCRIBE_EXPRESSION = (
    "(__import__('sys').version.split()[0], "
    "getattr(__import__('sys').modules.get('IPython'), '__version__', ''))"
)


def describe_request_content() -> dict[str, Any]:
    """The silent `execute_request` content that asks for the kernel's Python and IPython."""
    return {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {_DESCRIBE_KEY: _DESCRIBE_EXPRESSION},
        "allow_stdin": False,
        "stop_on_error": False,
    }


def parse_describe_reply(content: dict[str, Any]) -> dict[str, Any]:
    """kernel_info-shaped facts from the reply: language_info, implementation (or {})."""
    result = (content.get("user_expressions") or {}).get(_DESCRIBE_KEY)
    if not isinstance(result, dict) or result.get("status") != "ok":
        return {}
    text = (result.get("data") or {}).get("text/plain")
    try:
        python, ipython = ast.literal_eval(text) if isinstance(text, str) else (None, None)
    except (ValueError, SyntaxError, TypeError):
        return {}
    if not isinstance(python, str) or not isinstance(ipython, str):
        return {}
    facts: dict[str, Any] = {"language_info": {"name": "python", "version": python}}
    if ipython:
        facts.update(implementation="ipython", implementation_version=ipython)
    return facts
