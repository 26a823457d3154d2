"""A check never calls the user's replacement of a builtin, profile or trace function, and
publishes nothing on IOPub whatever the libraries warn (issue 29, items 2 and 5).

Tripwires count only calls made while a probe frame (a module under `_crane_probe`) is on the
stack: the kernel's own machinery (ipykernel, IPython, zmq threads) calls builtins hundreds of
times per request, and those are not the probe's. Each tripwire has a control showing it fires:
once when the user calls it, once from a frame attributed to the probe.

Semantics of a replaced builtin (docs/architecture.md, "What a check never does"):
- the probe's own modules look builtins up in their own copy, taken at install;
- library code a check evaluates (pandas, ast, json) looks up the kernel's builtins, so while
  any builtin is not the interpreter's own the check is refused with an Information note,
  whether the replacement came before the probe was installed or after; the original put back,
  checks run again (the probe's copy is healed if it was taken after the replacement).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import _request, run_probe

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(600)]

SETUP = r"""
import builtins, sys, threading
import pandas as pd
df = pd.DataFrame({"a": [1, 2, 3]})
HITS = {}      # name -> calls made with a probe frame on the stack
ALL = {}       # name -> every call
ORIGINAL = dict(vars(builtins))
_getframe = sys._getframe

def _hit(name):
    ALL[name] = ALL.get(name, 0) + 1
    frame = _getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("_crane_probe"):
            HITS[name] = HITS.get(name, 0) + 1
            return
        frame = frame.f_back

def tripwire(name):
    original = ORIGINAL[name]
    if isinstance(original, type):
        isinst, issub = ORIGINAL["isinstance"], ORIGINAL["issubclass"]
        class Meta(type(original)):
            def __call__(cls, *args, **kwargs):
                _hit(name)
                return original(*args, **kwargs)
            def __instancecheck__(cls, obj):
                _hit(name)
                return isinst(obj, original)
            def __subclasscheck__(cls, sub):
                _hit(name)
                return issub(sub, original)
        return Meta(name, (original,), {})
    def wrapper(*args, **kwargs):
        _hit(name)
        return original(*args, **kwargs)
    return wrapper

def arm(*names):
    for name in names:
        setattr(builtins, name, tripwire(name))

def disarm():
    for name in list(vars(builtins)):
        if name in ORIGINAL and vars(builtins)[name] is not ORIGINAL[name]:
            setattr(builtins, name, ORIGINAL[name])
"""

# The builtins the issue saw called by a check, and more classes and functions library code
# calls. `bool` cannot be subclassed; `__import__`, `exec` and `compile` are named by the request
# expression and the installer themselves (a documented limit, see docs).
FUNCTIONS = [
    "isinstance", "len", "getattr", "hasattr", "repr", "sorted", "iter", "next", "hash",
    "setattr", "issubclass", "callable", "min", "max", "sum", "any", "all", "abs", "id",
    "round", "vars", "dir", "format", "print", "open",
]  # fmt: skip
CLASSES = ["type", "str", "int", "list", "dict", "tuple", "set", "frozenset", "float", "object"]
CELL = "df['zz']"
# How the controls call each tripwire.
CALLS = {
    "isinstance": "isinstance(1, int)", "len": "len(())", "getattr": "getattr(1, 'real')",
    "hasattr": "hasattr(1, 'real')", "repr": "repr(1)", "sorted": "sorted(())",
    "iter": "iter(())", "next": "next(iter(()), 0)", "hash": "hash(1)",
    "setattr": "setattr(__import__('sys').__class__('m'), 'a', 1)",
    "issubclass": "issubclass(int, object)", "callable": "callable(1)", "min": "min(1, 2)",
    "max": "max(1, 2)", "sum": "sum(())", "any": "any(())", "all": "all(())", "abs": "abs(1)",
    "id": "id(1)", "round": "round(1.5)", "vars": "vars(int)", "dir": "dir(1)",
    "format": "format(1)", "print": "print(end='', file=__import__('sys').__stderr__)",
    "open": "open('/dev/null').close()", "type": "type(1)", "str": "str(1)", "int": "int('1')",
    "list": "list(())", "dict": "dict()", "tuple": "tuple(())", "set": "set()",
    "frozenset": "frozenset()", "float": "float(1)", "object": "object()",
}  # fmt: skip


def evaluate(kernel: RunningKernel, expression: str) -> Any:
    """A silent user expression's value (its repr, read back as a literal)."""
    content = {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {"v": expression},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    reply, _iopub = _request(kernel, content, 30)
    result = reply["user_expressions"]["v"]
    assert result["status"] == "ok", result
    return ast.literal_eval(result["data"]["text/plain"])


def hits(kernel: RunningKernel) -> dict[str, int]:
    text = evaluate(kernel, "ORIGINAL['__import__']('json').dumps(HITS)")
    return json.loads(text)  # type: ignore[no-any-return]


def refused(result: Any) -> bool:
    return bool(result.get("refused") == "builtins-replaced" and result["findings"])


@pytest.fixture(scope="module")
def armed_kernel(shared_kernel: RunningKernel) -> Iterator[RunningKernel]:
    reply = shared_kernel.execute(SETUP)
    assert reply["status"] == "ok", reply
    result, _ = run_probe(shared_kernel, "check", {"source": CELL})  # installed, genuine
    assert result["findings"][0]["code"] == "pandas-missing-column", result
    yield shared_kernel


@pytest.mark.parametrize("name", FUNCTIONS + CLASSES)
def test_builtin_replaced_after_install_is_never_called(
    armed_kernel: RunningKernel, name: str
) -> None:
    kernel = armed_kernel
    assert kernel.execute(f"arm({name!r})")["status"] == "ok"
    try:
        before = hits(kernel)
        result, iopub = run_probe(kernel, "check", {"source": CELL})
        assert hits(kernel) == before, f"the check called the user's {name}"
        assert refused(result), result
        note = result["findings"][0]
        assert note["severity"] == "information" and f"builtins.{name} " in note["message"]
        assert [m["msg_type"] for m in iopub] == ["status", "status"]
        # control: the tripwire is live, from the user's code and from a probe-named frame
        call = CALLS[name]
        calls = evaluate(kernel, f"(exec({call!r}, {{}}), ALL.get({name!r}, 0))[1]")
        assert calls >= 1
        probe_frame = f"(exec({call!r}, {{'__name__': '_crane_probe.control'}}), 0)[1]"
        evaluate(kernel, probe_frame)
        assert hits(kernel).get(name, 0) >= before.get(name, 0) + 1
    finally:
        assert kernel.execute("disarm()")["status"] == "ok"
    result, _ = run_probe(kernel, "check", {"source": CELL})
    assert result["findings"][0]["code"] == "pandas-missing-column", result


def test_builtins_replaced_before_attach_refuse_then_heal(kernel: RunningKernel) -> None:
    """Replaced before the probe is installed: the check refuses; the originals put back, the
    probe's own copy is healed and checks run again."""
    wrapped = ["isinstance", "len", "getattr", "hasattr", "repr", "sorted", "iter", "next", "hash"]
    assert kernel.execute(SETUP + f"\narm(*{wrapped!r})")["status"] == "ok"
    first, iopub = run_probe(kernel, "check", {"source": CELL})  # installs the probe
    assert refused(first), first
    assert [m["msg_type"] for m in iopub] == ["status", "status"]
    # install runs the probe's module code once (see docs: the installer's own lookups)
    before = hits(kernel)
    again, _ = run_probe(kernel, "check", {"source": CELL})
    assert refused(again) and hits(kernel) == before
    ping, _ = run_probe(kernel, "ping", {})
    assert ping["refused"] == "builtins-replaced" and hits(kernel) == before
    probe_copy = "__import__('sys').modules['_crane_probe'].genuine.BUILTINS"
    assert evaluate(kernel, f"{probe_copy}['len'] is ORIGINAL['len']") is False
    assert kernel.execute("disarm()")["status"] == "ok"
    healed, _ = run_probe(kernel, "check", {"source": CELL})
    assert healed["findings"][0]["code"] == "pandas-missing-column", healed
    assert evaluate(kernel, f"all({probe_copy}[n] is ORIGINAL[n] for n in {wrapped!r})") is True


def test_every_probe_module_has_the_probe_builtins(armed_kernel: RunningKernel) -> None:
    modules = (
        "[n for n, m in __import__('sys').modules.items() if n.startswith('_crane_probe.') "
        "and '__file__' in vars(m) and n != '_crane_probe.genuine' and vars(m)['__builtins__'] "
        "is not __import__('sys').modules['_crane_probe'].genuine.BUILTINS]"
    )
    assert evaluate(armed_kernel, modules) == []
    assert (
        evaluate(armed_kernel, "__import__('sys').modules['_crane_probe'].genuine.replaced()") == []
    )


PROFILER = r"""
import sys, threading
PROBE_EVENTS = []   # (hook, event, code name) seen on probe frames
SEEN = {"profile": 0, "trace": 0, "thread_profile": 0, "thread_trace": 0}

def _note(hook, frame, event):
    SEEN[hook] += 1
    if frame.f_globals.get("__name__", "").startswith("_crane_probe"):
        PROBE_EVENTS.append((hook, event, frame.f_code.co_name))

def user_profile(frame, event, arg):
    _note("profile", frame, event)

def user_trace(frame, event, arg):
    _note("trace", frame, event)
    return user_trace

def user_thread_profile(frame, event, arg):
    _note("thread_profile", frame, event)

def user_thread_trace(frame, event, arg):
    _note("thread_trace", frame, event)
    return user_thread_trace

threading.setprofile(user_thread_profile)
threading.settrace(user_thread_trace)
sys.setprofile(user_profile)
sys.settrace(user_trace)
"""

HOOKS_ARE_THE_USERS = (
    "[sys.getprofile() is user_profile, sys.gettrace() is user_trace, "
    "threading._profile_hook is user_thread_profile, threading._trace_hook is user_thread_trace]"
)


def test_profile_and_trace_suspended_and_restored(kernel: RunningKernel) -> None:
    setup = "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2, 3]})\n"
    assert kernel.execute(setup)["status"] == "ok"
    run_probe(kernel, "ping", {})  # installed before the hooks are set
    assert kernel.execute(PROFILER)["status"] == "ok"
    assert evaluate(kernel, HOOKS_ARE_THE_USERS) == [True] * 4
    assert evaluate(kernel, "len(PROBE_EVENTS)") == 0
    for cell in (CELL, "import sklearn\nfrom sklearn.linear_model import LinearRegression\n"):
        result, _ = run_probe(kernel, "check", {"source": cell, "handoff": True})
        assert "findings" in result, result
    events = evaluate(kernel, "PROBE_EVENTS")
    # the entry point's own frame is seen entering and leaving, nothing inside it; IPython
    # formats the result after the request has returned (two one-line methods of JsonResult)
    assert {code for _hook, _event, code in events} <= {"dispatch", "_repr_json_", "__repr__"}
    # per check: dispatch's call, its first line, four C calls and its return; and each of the
    # two formatting methods' call, lines and return
    assert len(events) <= 2 * 24, events
    assert evaluate(kernel, HOOKS_ARE_THE_USERS) == [True] * 4
    # controls: the hooks are live, on user code and on a probe-named frame
    seen = evaluate(kernel, "dict(SEEN)")
    evaluate(kernel, "exec('def f(): return 1\\nf()', {'__name__': '_crane_probe.x'})")
    assert evaluate(kernel, "dict(SEEN)")["profile"] > seen["profile"]
    assert [e for e in evaluate(kernel, "PROBE_EVENTS") if e[2] == "f"]
    started = "(exec('t = threading.Thread(target=int)\\nt.start()\\nt.join()'), 0)[1]"
    evaluate(kernel, started)
    after = evaluate(kernel, "dict(SEEN)")
    assert after["thread_profile"] > seen["thread_profile"]
    assert after["thread_trace"] > seen["thread_trace"]
    assert kernel.execute("sys.setprofile(None); sys.settrace(None)")["status"] == "ok"


def test_handoff_publishes_nothing_on_iopub(kernel: RunningKernel) -> None:
    """With pandas loaded, a cell importing sklearn goes to the hand-off: which reads pandas'
    options, deprecated ones no more; and any warning during a request is dropped."""
    setup = (
        "import sys, warnings\nimport pandas as pd\ndf = pd.DataFrame({'a': [1.0, 2.0]})\n"
        "assert 'sklearn' not in sys.modules\nFILTERS = warnings.filters\n"
        "SAVED_FILTERS = list(warnings.filters)\n"
    )
    assert kernel.execute(setup)["status"] == "ok"
    deprecated = evaluate(kernel, "sorted(pd._config.config._deprecated_options)")
    assert deprecated, "this pandas deprecates no option: the test proves nothing"
    cell = "import sklearn\nfrom sklearn.linear_model import LinearRegression\nm = LinearRegression()\n"
    for _ in range(2):  # the first check also installs the probe
        result, iopub = run_probe(kernel, "check", {"source": cell, "handoff": True})
        assert "handoff" in result, result
        assert not any(k in result["handoff"]["settings"]["pandas"] for k in deprecated)
        kinds = [m["msg_type"] for m in iopub]
        assert kinds == ["status", "status"], [m["content"] for m in iopub]
    same = "[warnings.filters is FILTERS, warnings.filters == SAVED_FILTERS, '__warningregistry__' in dir()]"
    assert evaluate(kernel, same) == [True, True, False]
    # control: reading a deprecated option directly does warn, on the kernel's stderr
    content = {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {"v": f"pd.get_option({deprecated[0]!r})"},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    _reply, iopub = _request(kernel, content, 30)
    streams = [m for m in iopub if m["msg_type"] == "stream"]
    assert streams and "Warning" in streams[0]["content"]["text"], iopub


def test_warning_inside_a_request_is_dropped_and_registries_kept(kernel: RunningKernel) -> None:
    """A library warning raised during a probe request is not shown, and the user's registries
    stay valid: a warning shown once is not shown again after a request (warnings'
    catch_warnings would bump the filters version and make it show again)."""
    setup = (
        "import sys, warnings\nwarnings.simplefilter('default')\n"
        "def user_warns():\n    warnings.warn('once only', UserWarning)\n"
    )
    assert kernel.execute(setup)["status"] == "ok"
    probe = "sys.modules['_crane_probe']"
    run_probe(kernel, "ping", {})
    # an op that warns, added for the test and run by dispatch like any other
    warns = "{'warned': (warnings.warn('probe-side', FutureWarning), 1)[1]}"
    evaluate(kernel, f"({probe}.entry.OPS.__setitem__('warn_test', lambda p: {warns}), 0)[1]")
    try:
        result, iopub = run_probe(kernel, "warn_test", {})
        assert result["warned"] == 1, result
        assert [m["msg_type"] for m in iopub] == ["status", "status"], iopub
        # within one request: the user's warning, a probe request, the same warning again
        content = {
            "code": "",
            "silent": True,
            "store_history": False,
            "user_expressions": {
                "v": f"[user_warns(), {probe}.entry.dispatch('warn_test', '{{}}'), user_warns()]"
            },
            "allow_stdin": False,
            "stop_on_error": False,
        }
        reply, iopub = _request(kernel, content, 30)
        assert reply["user_expressions"]["v"]["status"] == "ok", reply
        text = "".join(m["content"]["text"] for m in iopub if m["msg_type"] == "stream")
        assert text.count("UserWarning: once only") == 1, text
        assert "probe-side" not in text
        # control: entering and leaving catch_warnings, as the probe did before, shows the
        # already shown warning again
        cycle = (
            "(lambda c: (c.__enter__(), c.__exit__(None, None, None)))(warnings.catch_warnings())"
        )
        content["user_expressions"] = {"v": f"[user_warns(), {cycle}, user_warns()]"}
        reply, iopub = _request(kernel, content, 30)
        text = "".join(m["content"]["text"] for m in iopub if m["msg_type"] == "stream")
        assert text.count("UserWarning: once only") == 1, text
    finally:
        evaluate(kernel, f"({probe}.entry.OPS.pop('warn_test'), 0)[1]")
