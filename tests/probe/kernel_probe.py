"""Send one probe call over a test kernel's blocking client and collect what IOPub shows."""

from __future__ import annotations

import ast
import json
import queue
import time
from typing import Any

from crane_server.kernels.probe_transport import build_probe_content, decode_probe_reply
from tests.conftest import RunningKernel

# Evaluated silently in the user namespace: what "no trace" compares before and after.
FINGERPRINT = (
    "__import__('json').dumps({"
    "'names': sorted(dir()),"
    "'underscores': [repr(_), repr(__), repr(___)],"
    "'out': sorted(map(str, Out)),"
    "'in': list(In),"
    "'count': get_ipython().execution_count,"
    "'modules': sorted(k for k in __import__('sys').modules if not k.startswith('_crane_probe'))"
    "})"
)


def _drain_iopub(kernel: RunningKernel) -> None:
    while True:
        try:
            kernel.client.get_iopub_msg(timeout=0)
        except queue.Empty:
            return


def _request(
    kernel: RunningKernel, content: dict[str, Any], timeout: float
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Send an execute_request; return its reply content and every IOPub message until idle."""
    _drain_iopub(kernel)
    message = kernel.client.session.msg("execute_request", content)
    kernel.client.shell_channel.send(message)
    msg_id = message["header"]["msg_id"]
    deadline = time.monotonic() + timeout
    reply: dict[str, Any] | None = None
    iopub: list[dict[str, Any]] = []
    idle = False
    while reply is None or not idle:
        remaining = deadline - time.monotonic()
        assert remaining > 0, "the kernel did not answer the probe in time"
        if reply is None:
            shell = kernel.client.get_shell_msg(timeout=remaining)
            if shell["parent_header"].get("msg_id") == msg_id:
                reply = shell["content"]
            continue
        event = kernel.client.get_iopub_msg(timeout=remaining)
        iopub.append(event)
        if (
            event["msg_type"] == "status"
            and event["parent_header"].get("msg_id") == msg_id
            and event["content"]["execution_state"] == "idle"
        ):
            idle = True
    return reply, iopub


def run_probe(
    kernel: RunningKernel, op: str, payload: dict[str, Any], timeout: float = 30
) -> tuple[Any, list[dict[str, Any]]]:
    """The probe's decoded result and the IOPub messages its request caused."""
    reply, iopub = _request(kernel, build_probe_content(op, payload), timeout)
    return decode_probe_reply(reply), iopub


def check_quietly(kernel: RunningKernel, source: str) -> dict[str, Any]:
    """The probe's check of `source`; asserts that it printed nothing and raised nothing."""
    result, iopub = run_probe(kernel, "check", {"source": source})
    assert {message["msg_type"] for message in iopub} == {"status"}  # nothing printed
    assert not result.get("error"), result
    return result  # type: ignore[no-any-return]


def read_silently(kernel: RunningKernel, expression: str, timeout: float = 30) -> str:
    """The repr of `expression` in the kernel, read as a silent user expression."""
    content = {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {"value": expression},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    reply, _iopub = _request(kernel, content, timeout)
    result = reply["user_expressions"]["value"]
    assert result["status"] == "ok", result
    return str(result["data"]["text/plain"])


def fingerprint(kernel: RunningKernel, timeout: float = 30) -> dict[str, Any]:
    """Names, _/__/___, Out, In, execution count and sys.modules, read silently."""
    text = ast.literal_eval(read_silently(kernel, FINGERPRINT, timeout))  # the repr of a str
    return json.loads(text)  # type: ignore[no-any-return]


def history(kernel: RunningKernel, timeout: float = 30) -> list[Any]:
    """This session's input history, as `history_request` (range, session 0) reports it."""
    msg_id = kernel.client.history(
        raw=True, output=False, hist_access_type="range", session=0, start=0, stop=None
    )
    deadline = time.monotonic() + timeout
    while True:
        shell = kernel.client.get_shell_msg(timeout=max(0.01, deadline - time.monotonic()))
        if shell["parent_header"].get("msg_id") == msg_id:
            return [list(entry) for entry in shell["content"]["history"]]
