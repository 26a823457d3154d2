"""Every protocol hook a library or the interpreter calls back x every place the checker
evaluates: a check never runs the user's hook. Each (hook, place) is armed by a control that
runs the place for real and sees the hook's tripwire fire; combinations whose control does
not fire are not counted (the hook is not reached from there)."""

from __future__ import annotations

import ast
import itertools

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import _request, run_probe

pytestmark = pytest.mark.kernel

SETUP = """
import numpy as np
import pandas as pd
HITS = []

def _hit(name):
    HITS.append(name)

class Idx:
    def __index__(self):
        _hit("__index__"); return 1

class CG:
    def __class_getitem__(cls, item):
        _hit("__class_getitem__"); return cls

class Meta(type):
    def __getitem__(cls, item):
        _hit("metaclass __getitem__"); return cls

class MG(metaclass=Meta):
    pass

def frame_with(name, member):
    return type("Frame_" + name.strip("_"), (pd.DataFrame,), {name: member})

def array_with(name, member):
    return type("Array_" + name.strip("_"), (np.ndarray,), {name: member})

FRAME_HOOKS = {
    "_constructor": property(lambda self: (_hit("_constructor"), type(self))[1]),
    "_constructor_sliced": property(lambda self: (_hit("_constructor_sliced"), pd.Series)[1]),
    "__finalize__": lambda self, other, method=None, **kw: (_hit("__finalize__"), self)[1],
    "__getitem__": lambda self, key: (_hit("__getitem__"), pd.DataFrame.__getitem__(self, key))[1],
    "__add__": lambda self, other: (_hit("__add__"), pd.DataFrame.__add__(self, other))[1],
    "__len__": lambda self: (_hit("__len__"), pd.DataFrame.__len__(self))[1],
    "copy": lambda self, deep=True: (_hit("copy"), pd.DataFrame.copy(self, deep))[1],
    "__array_ufunc__": lambda self, *a, **k: (_hit("__array_ufunc__"), NotImplemented)[1],
}
ARRAY_HOOKS = {
    "__array_finalize__": lambda self, obj: _hit("__array_finalize__"),
    "__array_wrap__": lambda self, out, context=None, return_scalar=False: (
        _hit("__array_wrap__"), out)[1],
    "__array_ufunc__": lambda self, ufunc, method, *a, **k: (
        _hit("__array_ufunc__"), NotImplemented)[1],
    "__array_function__": lambda self, func, types, args, kwargs: (
        _hit("__array_function__"), NotImplemented)[1],
    "__getitem__": lambda self, key: (_hit("__getitem__"), np.ndarray.__getitem__(self, key))[1],
}
FRAMES = {name: frame_with(name, member)({"a": [1, 2], "b": [3, 4]})
          for name, member in FRAME_HOOKS.items()}
ARRAYS = {name: np.arange(6.0).view(array_with(name, member))
          for name, member in ARRAY_HOOKS.items()}
del HITS[:]
"""

INTEGER_PLACES = [
    "[1, 2, 3][:obj]", "[1, 2, 3][obj:]", "[1, 2, 3][::obj]", "[1, 2, 3][obj]", "range(obj)",
    "'ab' * obj", "np.zeros(obj)", "np.arange(5)[:obj]", "pd.Series([1, 2]).iloc[:obj]",
    "(1, 2, 3)[obj]", "'abc'[obj:]",
]  # fmt: skip
CLASS_PLACES = ["CG[int]", "CG[int, str]", "MG[1]", "MG['a']"]
FRAME_PLACES = [
    "obj[['a']]", "obj['a']", "obj + 1", "obj.copy()", "obj.head()", "len(obj)",
    "np.sqrt(obj)", "obj.sum()", "obj.loc[0]", "obj[['a']] + 1", "obj.mean()",
]  # fmt: skip
ARRAY_PLACES = [
    "obj + 1", "obj[:1]", "np.sum(obj)", "obj.reshape(-1)", "obj.T", "obj * obj",
    "np.sqrt(obj)", "obj.mean()",
]  # fmt: skip


def cases() -> list[tuple[str, str, str]]:
    """(id, setup of `obj`, the place) for every hook x place."""
    found = [(f"__index__ @ {p}", "obj = Idx()", p) for p in INTEGER_PLACES]
    found += [(f"class @ {p}", "obj = None", p) for p in CLASS_PLACES]
    frame_hooks = ["_constructor", "_constructor_sliced", "__finalize__", "__getitem__",
                   "__add__", "__len__", "copy", "__array_ufunc__"]  # fmt: skip
    array_hooks = ["__array_finalize__", "__array_wrap__", "__array_ufunc__",
                   "__array_function__", "__getitem__"]  # fmt: skip
    for hook, place in itertools.product(frame_hooks, FRAME_PLACES):
        found.append((f"DataFrame.{hook} @ {place}", f"obj = FRAMES[{hook!r}]", place))
    for hook, place in itertools.product(array_hooks, ARRAY_PLACES):
        found.append((f"ndarray.{hook} @ {place}", f"obj = ARRAYS[{hook!r}]", place))
    return found


def hits(kernel: RunningKernel) -> list[str]:
    content = {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {"h": "list(HITS)"},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    reply, _ = _request(kernel, content, 30)
    return ast.literal_eval(reply["user_expressions"]["h"]["data"]["text/plain"])  # type: ignore[no-any-return]


def test_no_protocol_hook_runs_during_a_check(kernel: RunningKernel) -> None:
    assert kernel.execute(SETUP)["status"] == "ok"
    armed, fired = [], []
    for ident, bind, place in cases():
        assert kernel.execute(bind)["status"] == "ok"
        kernel.execute(f"del HITS[:]\ntry:\n    _ctl = {place}\nexcept Exception:\n    pass")
        if not hits(kernel):
            continue  # the control does not reach the hook from this place
        armed.append(ident)
        kernel.execute("del HITS[:]")
        source = f"result = {place}\nresult.zz_missing_attribute\n"
        answer, _ = run_probe(kernel, "check", {"source": source})
        assert "error" not in answer, (ident, answer)
        if hits(kernel):
            fired.append((ident, hits(kernel)))
    assert fired == []
    assert len(armed) >= 45, armed  # the controls really reach the hooks (51 here)
    kinds = {ident.split(" @ ")[0] for ident in armed}
    assert {"__index__", "class", "DataFrame._constructor", "ndarray.__array_finalize__"} <= kinds
