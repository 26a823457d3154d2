"""No user `__reduce__`, `__reduce_ex__`, `__getstate__`, `__copy__` or `__deepcopy__` runs
while the kernel packs a cell's names for the helper interpreter (issue 29, round 3).

The hand-off pickles the shadows the walk would use; a shadow of a scikit-learn estimator
deep-copies its fitted state. User objects with those dunders (each appends to HITS) sit
in plain containers, object arrays, frames (columns, attrs), and in estimators' state inside
generic holders whose contents are not in a `__dict__` (defaultdict, OrderedDict, deque,
Counter, partial, slice, itemgetter, Bunch, an iterator). A check of a cell that reads them
and first imports a library the kernel has not loaded (so it is handed off) leaves HITS
empty and hands each over as "exists, unknown"; the control pickles or copies each for real
and sees the tripwire fire. The library-only pickler is also tried directly on such values.
"""

from __future__ import annotations

import ast
import collections
import copy
import functools
import operator
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crane_server.probe.interpreter.handoff import pack
from tests.conftest import RunningKernel
from tests.probe.kernel_probe import _request, run_probe

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

SETUP = r"""
import collections, functools, itertools, operator
import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.utils import Bunch
HITS = []

def _hit(name):
    HITS.append(name)

class R:
    def __init__(self, tag="r"):
        self.tag = tag
    def __reduce__(self):
        _hit("__reduce__"); return (R, (self.tag,))
    def __reduce_ex__(self, protocol):
        _hit("__reduce_ex__"); return (R, (self.tag,))
    def __getstate__(self):
        _hit("__getstate__"); return {"tag": self.tag}
    def __setstate__(self, state):
        _hit("__setstate__"); self.tag = state["tag"]
    def __copy__(self):
        _hit("__copy__"); return R(self.tag)
    def __deepcopy__(self, memo):
        _hit("__deepcopy__"); return R(self.tag)

class RList(list):
    def __reduce_ex__(self, protocol):
        _hit("RList.__reduce_ex__"); return (RList, (list(self),))
    def __deepcopy__(self, memo):
        _hit("RList.__deepcopy__"); return RList(self)

X = np.arange(6.0).reshape(3, 2)
y = np.array([1.0, 2.0, 3.0])

def fitted(**extra):
    model = LinearRegression().fit(X, y)
    for key, value in extra.items():
        setattr(model, key, value)
    return model

r = R()
lst = [1, R()]
dct = {"a": R()}
tup = (R(),)
rlist = RList([1, 2])
arr_obj = np.array([R(), R()], dtype=object)
df_obj = pd.DataFrame({"a": [R(), R()]})
df_attrs = pd.DataFrame({"a": [1, 2]})
df_attrs.attrs["u"] = R()
part = functools.partial(max, R())
est_param = LinearRegression(n_jobs=R())
est_defaultdict = fitted(extra_=collections.defaultdict(list, {"k": R()}))
est_ordereddict = fitted(extra_=collections.OrderedDict(k=R()))
est_deque = fitted(extra_=collections.deque([R()]))
est_counter = fitted(extra_=collections.Counter({R(): 1}))
est_partial = fitted(extra_=functools.partial(max, R()))
est_slice = fitted(extra_=slice(R()))
est_itemgetter = fitted(extra_=operator.itemgetter(R()))
est_bunch = fitted(extra_=Bunch(k=R()))
est_iterator = fitted(extra_=itertools.repeat(R()))
est_frame = fitted(extra_=df_attrs)
est_rlist = fitted(extra_=rlist)
in_dict = {"model": est_defaultdict}
# library values only: packed as before
est_plain = fitted(extra_=collections.OrderedDict(k=1))
plain_frame = pd.DataFrame({"a": [1.0, 2.0]})
del HITS[:]
"""

USER_NAMES = [
    "r", "lst", "dct", "tup", "rlist", "arr_obj", "df_obj", "part", "est_param",
    "est_defaultdict", "est_ordereddict", "est_deque", "est_counter", "est_partial",
    "est_slice", "est_itemgetter", "est_bunch", "est_iterator", "est_frame", "est_rlist",
    "in_dict",
]  # fmt: skip
LIBRARY_NAMES = ["est_plain", "plain_frame", "X"]
FIRST_IMPORT = "import statsmodels.api as sm\n"  # not loaded in the kernel: a hand-off


def _evaluate(kernel: RunningKernel, expression: str) -> str:
    """The repr of `expression` in the kernel, read silently."""
    content = {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {"e": expression},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    reply, _ = _request(kernel, content, 30)
    result = reply["user_expressions"]["e"]
    assert result["status"] == "ok", result
    return str(result["data"]["text/plain"])


def hits(kernel: RunningKernel) -> list[str]:
    return ast.literal_eval(_evaluate(kernel, "list(HITS)"))  # type: ignore[no-any-return]


def clear(kernel: RunningKernel) -> None:
    assert kernel.execute("del HITS[:]")["status"] == "ok"


@pytest.fixture(scope="module")
def reduce_kernel(runtime_dir: Path) -> Iterator[RunningKernel]:
    running = RunningKernel(runtime_dir)
    try:
        reply = running.execute(SETUP)
        assert reply["status"] == "ok", reply
        assert hits(running) == []
        assert _evaluate(running, "'statsmodels' in __import__('sys').modules") == "False"
        yield running
    finally:
        running.shutdown()


def _control(kernel: RunningKernel, name: str) -> list[str]:
    """What the tripwire records when `name` is pickled and deep-copied for real."""
    clear(kernel)
    code = (
        "import copy, pickle\n"
        "for _do in (pickle.dumps, copy.deepcopy, copy.copy):\n"
        "    try:\n"
        f"        _do({name})\n"
        "    except Exception:\n"
        "        pass\n"
    )
    assert kernel.execute(code)["status"] == "ok"
    found = hits(kernel)
    clear(kernel)
    return found


def _handoff(kernel: RunningKernel, names: list[str]) -> tuple[dict[str, Any], list[str]]:
    clear(kernel)
    reads = "".join(f"value_{i} = {name}\n" for i, name in enumerate(names))
    source = FIRST_IMPORT + reads + "value_0.zz_missing_attribute\n"
    answer, _iopub = run_probe(kernel, "check", {"source": source, "handoff": True})
    assert "error" not in answer, answer
    handoff = answer.get("handoff")
    assert handoff is not None, answer  # statsmodels is not loaded: the cell is handed off
    return handoff, hits(kernel)


@pytest.mark.parametrize("name", USER_NAMES)
def test_the_hand_off_runs_no_reduce_or_copy_of_a_user_object(
    reduce_kernel: RunningKernel, name: str
) -> None:
    assert _control(reduce_kernel, name), f"pickling or copying {name} for real tripped nothing"
    handoff, found = _handoff(reduce_kernel, [name])
    assert found == []
    assert name in handoff["opaque"] and name not in handoff["values"], handoff["opaque"]


def test_library_values_beside_them_are_still_packed(reduce_kernel: RunningKernel) -> None:
    handoff, found = _handoff(reduce_kernel, [*LIBRARY_NAMES, *USER_NAMES])
    assert found == []
    assert set(LIBRARY_NAMES) <= set(handoff["values"]), handoff["opaque"]
    assert set(USER_NAMES) <= set(handoff["opaque"])


def test_checks_of_the_estimators_copy_none_of_their_state(reduce_kernel: RunningKernel) -> None:
    # the shadow of an estimator is built by every check that reads it, hand-off or not
    estimators = [name for name in USER_NAMES if name.startswith("est_")]
    for name in estimators:
        clear(reduce_kernel)
        source = f"prediction = {name}.predict(X)\nprediction.zz_missing_attribute\n"
        answer, _iopub = run_probe(reduce_kernel, "check", {"source": source})
        assert "error" not in answer, answer
        assert hits(reduce_kernel) == [], name
    # control of the same walk on a library-only estimator: it is judged (its shadow exists)
    answer, _iopub = run_probe(
        reduce_kernel, "check", {"source": "prediction = est_plain.predict(X)\nprediction.zz\n"}
    )
    assert [f["code"] for f in answer["findings"]] == ["python-missing-attribute"]


HITS: list[str] = []


class _Reducer:
    """A user object whose every pickling and copying hook is a tripwire."""

    def __reduce__(self) -> Any:
        HITS.append("__reduce__")
        return (_Reducer, ())

    def __reduce_ex__(self, protocol: Any) -> Any:
        HITS.append("__reduce_ex__")
        return (_Reducer, ())

    def __getstate__(self) -> Any:
        HITS.append("__getstate__")
        return {}

    def __deepcopy__(self, memo: Any) -> Any:
        HITS.append("__deepcopy__")
        return _Reducer()


class _ReducingList(list):  # type: ignore[type-arg]
    def __reduce_ex__(self, protocol: Any) -> Any:
        HITS.append("list subclass __reduce_ex__")
        return (_ReducingList, ())


class _ReducingStr(str):
    def __reduce_ex__(self, protocol: Any) -> Any:
        HITS.append("str subclass __reduce_ex__")
        return (_ReducingStr, ())


def _pickled_values() -> list[Any]:
    import numpy as np
    import pandas as pd

    return [
        _Reducer(),
        [_Reducer()],
        {"a": _Reducer()},
        {_ReducingStr("key"): 1},
        np.array([_Reducer()], dtype=object),
        pd.DataFrame({"a": [_Reducer()]}),
        pd.Series([_ReducingStr("x")], dtype=object),  # pandas 3 with pyarrow copies str otherwise
        collections.OrderedDict(k=_Reducer()),
        collections.deque([_Reducer()]),
        _ReducingList(),
        _ReducingStr("text"),
        slice(_Reducer()),
        functools.partial(max, _Reducer()),
        operator.itemgetter(_Reducer()),
    ]


@pytest.mark.parametrize("index", range(len(_pickled_values())))
def test_the_library_pickler_refuses_before_reducing(index: int) -> None:
    del HITS[:]
    value = _pickled_values()[index]
    for control in (pickle.dumps, copy.deepcopy):
        try:
            control(value)
        except Exception:
            pass
    assert HITS, "the control tripped nothing"
    del HITS[:]
    assert pack(value, 1_000_000) is None
    assert HITS == []
