"""A user-defined pandas ExtensionArray is never called by a check (issue 29, round 3).

Every method and property of the array and its dtype that pandas calls (`copy`,
`__getitem__`, `__len__`, `isna`, `take`, `astype`, `_reduce`, `_formatter`, `dtype`, the
dtype's `name`, `kind`, `__eq__`...) appends to HITS. A Series, a DataFrame column, an index,
a Categorical's categories, a groupby and a dict holding such a frame live in the kernel. A
check of many kinds of cell, the snapshot behind hovers and the LLM prompt, and the helper
hand-off leave HITS empty, and the checker says nothing about those cells (its verdict is
unknown); the control runs each cell for real and sees the tripwire fire (64 of the 74 cells
reach the array when run; every one of the 74 is checked).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import _request, run_probe

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

SETUP = r"""
import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray, ExtensionDtype, register_extension_dtype
HITS = []

def _hit(name):
    HITS.append(name)

@register_extension_dtype
class TrapDtype(ExtensionDtype):
    _metadata = ()
    @property
    def name(self):
        _hit("dtype.name"); return "trap"
    @property
    def type(self):
        _hit("dtype.type"); return float
    @property
    def kind(self):
        _hit("dtype.kind"); return "f"
    @property
    def na_value(self):
        _hit("dtype.na_value"); return np.nan
    @classmethod
    def construct_array_type(cls):
        _hit("dtype.construct_array_type"); return TrapArray
    @classmethod
    def construct_from_string(cls, string):
        if string == "trap":
            _hit("dtype.construct_from_string"); return cls()
        raise TypeError("not a trap dtype")
    def __repr__(self):
        _hit("dtype.__repr__"); return "TrapDtype()"
    def __str__(self):
        _hit("dtype.__str__"); return "trap"
    def __hash__(self):
        _hit("dtype.__hash__"); return hash("trap")
    def __eq__(self, other):
        _hit("dtype.__eq__"); return isinstance(other, TrapDtype) or other == "trap"

class TrapArray(ExtensionArray):
    def __init__(self, values):
        self._data = np.asarray(values, dtype=float)
    @classmethod
    def _from_sequence(cls, scalars, *, dtype=None, copy=False):
        _hit("_from_sequence"); return cls(list(scalars))
    @classmethod
    def _from_factorized(cls, values, original):
        _hit("_from_factorized"); return cls(values)
    def __getitem__(self, item):
        _hit("__getitem__")
        found = self._data[item]
        return found if np.ndim(found) == 0 else TrapArray(found)
    def __setitem__(self, key, value):
        _hit("__setitem__"); self._data[key] = value
    def __len__(self):
        _hit("__len__"); return len(self._data)
    def __iter__(self):
        _hit("__iter__"); return iter(self._data.tolist())
    def __eq__(self, other):
        _hit("__eq__"); return self._data == np.asarray(other)
    def __array__(self, dtype=None, copy=None):
        _hit("__array__"); return np.asarray(self._data, dtype=dtype)
    def __repr__(self):
        _hit("__repr__"); return "TrapArray(%r)" % (self._data.tolist(),)
    def __reduce__(self):
        _hit("__reduce__"); return (TrapArray, (self._data.tolist(),))
    def __copy__(self):
        _hit("__copy__"); return TrapArray(self._data.copy())
    def __deepcopy__(self, memo):
        _hit("__deepcopy__"); return TrapArray(self._data.copy())
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _hit("__array_ufunc__"); return NotImplemented
    def __contains__(self, item):
        _hit("__contains__"); return item in self._data.tolist()
    @property
    def dtype(self):
        _hit("dtype"); return TrapDtype()
    @property
    def nbytes(self):
        _hit("nbytes"); return self._data.nbytes
    @property
    def shape(self):
        _hit("shape"); return self._data.shape
    def isna(self):
        _hit("isna"); return np.isnan(self._data)
    def take(self, indices, allow_fill=False, fill_value=None):
        _hit("take")
        from pandas.api.extensions import take
        return TrapArray(take(self._data, indices, allow_fill=allow_fill, fill_value=fill_value))
    def copy(self):
        _hit("copy"); return TrapArray(self._data.copy())
    def astype(self, dtype, copy=True):
        _hit("astype")
        return self.copy() if isinstance(dtype, TrapDtype) else self._data.astype(dtype)
    def view(self, dtype=None):
        _hit("view"); return TrapArray(self._data)
    @classmethod
    def _concat_same_type(cls, to_concat):
        _hit("_concat_same_type"); return cls(np.concatenate([a._data for a in to_concat]))
    def _values_for_factorize(self):
        _hit("_values_for_factorize"); return self._data, np.nan
    def _values_for_argsort(self):
        _hit("_values_for_argsort"); return self._data
    def _formatter(self, boxed=False):
        _hit("_formatter"); return repr
    def _reduce(self, name, *, skipna=True, keepdims=False, **kwargs):
        _hit("_reduce"); return getattr(np, "nan" + name, getattr(np, name))(self._data)
    def fillna(self, value=None, limit=None, copy=True):
        _hit("fillna"); return self.copy()
    def unique(self):
        _hit("unique"); return TrapArray(np.unique(self._data))

arr = TrapArray([1.0, 2.0, float("nan")])
s = pd.Series(TrapArray([1.0, 2.0, 3.0]), name="t")
df = pd.DataFrame({"a": [1, 2, 3], "t": TrapArray([4.0, 5.0, 6.0])})
tidx = pd.DataFrame({"a": [1, 2, 3]}, index=pd.Index(TrapArray([7.0, 8.0, 9.0])))
tcols = pd.DataFrame([[1, 2]], columns=pd.Index(TrapArray([1.0, 2.0])))
cat = pd.Categorical.from_codes([0, 1, 0], categories=pd.Index(TrapArray([1.5, 2.5])))
scat = pd.Series(cat)
big = pd.DataFrame({"a": np.arange(3000), "t": TrapArray(np.arange(3000.0))})
gb = df.groupby("a")
box = {"frame": df, "n": 1}
plain = pd.DataFrame({"a": [1, 2, 3]})
del HITS[:]
"""

# Cells of many kinds; each is run for real as the control and checked as
# `result = <place>` followed by a line that would raise on any value.
PLACES = [
    "df['t']", "df.t", "df['t'] + 1", "df.t * df.a", "df['t'].sum()", "df.t.mean()",
    "df.head()", "df.tail(2)", "len(df)", "df.shape", "df.dtypes", "df.describe()",
    "df['zz']", "df[['a', 'zz']]", "df.isna().sum()", "df.t.astype(int)", "df.copy()",
    "df.iloc[:2]", "df.loc[0, 't']", "df.sort_values('t')", "df.t.value_counts()",
    "df.fillna(0)", "df.dropna()", "df.drop(columns='a')", "df.t.tolist()",
    "df.to_numpy()", "np.asarray(df.t)", "pd.concat([df, df])", "df.merge(plain, on='a')",
    "df.groupby('t').size()", "df.t.unique()", "str(df)", "repr(s)", "df.t.max()",
    "np.sqrt(df.t)", "df.t == 4.0", "df.t.isin([4.0])", "df.t.apply(float)",
    "s.sum()", "s[0]", "s.iloc[1:]", "s.astype('float64')", "len(s)", "s + s",
    "arr[0]", "len(arr)", "arr.isna()", "list(arr)", "arr.take([0])", "arr.copy()",
    "tidx.loc[7.0]", "tidx.index[0]", "tidx.reset_index()", "tidx.sort_index()",
    "tcols[1.0]", "tcols.columns.tolist()", "scat.cat.categories", "scat.astype(str)",
    "cat.categories", "big.head()", "big.t.sum()", "big.sample(5, random_state=0)",
    "gb.t.sum()", "gb.size()", "box['frame'].t.sum()", "box['frame']['zz']",
]  # fmt: skip
CELLS = [
    "out = df.copy()\nout['u'] = out['t'] * 2\nout.u.sum()",
    "for value in s:\n    print(value)",
    "total = 0\nfor value in arr:\n    total += value",
    "import json\njson.dumps(df.t.tolist())",
    "df.plot(x='a', y='t')",
    "df.to_dict()",
    "df.t.to_frame().T",
    "assert len(df) == 3, df",
]  # fmt: skip


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
    """The tripwire's record, read silently."""
    return ast.literal_eval(_evaluate(kernel, "list(HITS)"))  # type: ignore[no-any-return]


def clear(kernel: RunningKernel) -> None:
    assert kernel.execute("del HITS[:]")["status"] == "ok"


@pytest.fixture(scope="module")
def ea_kernel(runtime_dir: Path) -> Iterator[RunningKernel]:
    running = RunningKernel(runtime_dir)
    try:
        reply = running.execute(SETUP)
        assert reply["status"] == "ok", reply
        assert hits(running) == []
        yield running
    finally:
        running.shutdown()


def _control(kernel: RunningKernel, cell: str) -> list[str]:
    """What the tripwire records when `cell` really runs (a throwaway name, errors caught)."""
    clear(kernel)
    body = "\n".join("    " + line for line in cell.splitlines())
    kernel.execute(f"try:\n{body}\nexcept Exception:\n    pass")
    found = hits(kernel)
    clear(kernel)
    return found


def _check(kernel: RunningKernel, source: str) -> tuple[Any, list[str]]:
    clear(kernel)
    answer, _iopub = run_probe(kernel, "check", {"source": source, "handoff": True})
    return answer, hits(kernel)


def test_checks_of_cells_reading_a_user_extension_array_call_none_of_it(
    ea_kernel: RunningKernel,
) -> None:
    armed, fired, judged = [], [], []
    cells = [(place, f"result = {place}\nresult.zz_missing_attribute\n") for place in PLACES]
    cells += [(cell, cell) for cell in CELLS]
    for label, source in cells:
        control_source = f"_ctl = {label}" if label in PLACES else label
        if _control(ea_kernel, control_source):
            armed.append(label)  # else running it for real does not reach the array
        answer, found = _check(ea_kernel, source)
        assert "error" not in answer, (label, answer)
        if found:
            fired.append((label, found[:6]))
        # nothing is judged about a value it cannot read without calling the array
        if answer.get("findings"):
            judged.append((label, [f["code"] for f in answer["findings"]]))
    assert fired == []
    assert judged == []
    # the controls really reach the array (64 of the 74 cells here)
    assert len(armed) >= 60, (len(armed), sorted(set(PLACES + CELLS) - set(armed)))


def test_the_snapshot_of_user_extension_arrays_calls_none_of_it(ea_kernel: RunningKernel) -> None:
    names = ["arr", "s", "df", "tidx", "tcols", "cat", "scat", "big", "gb", "box", "plain"]
    for name in names:
        if name != "plain":  # what a summary reads (a repr, the groups' sums) reaches the array
            read = "gb.sum()" if name == "gb" else f"repr({name})"
            assert _control(ea_kernel, f"_ctl = {read}"), name
    clear(ea_kernel)
    answer, _iopub = run_probe(ea_kernel, "summarise", {"names": names})
    assert "error" not in answer, answer
    assert hits(ea_kernel) == []
    variables = answer["variables"]
    for name in ("s", "df", "tidx", "tcols", "cat", "scat", "big", "gb"):
        summary = variables[name]
        assert summary["details"] == {"user_extension_array": True}, (name, summary)
        assert "shape" not in summary and "dtype" not in summary and "stats" not in summary
    # a frame without one is summarised as before
    assert variables["plain"]["shape"] == [3, 1] and variables["plain"]["columns"] == ["a"]


def test_the_helper_hand_off_packs_none_of_it(ea_kernel: RunningKernel) -> None:
    assert _evaluate(ea_kernel, "'sklearn' in __import__('sys').modules") == "False"
    # control: pickling the frame for real calls the array (its __reduce__)
    assert _control(ea_kernel, "import pickle\n_ctl = pickle.dumps(df)")
    cell = (
        "from sklearn.preprocessing import StandardScaler\n"
        "scaled = StandardScaler().fit_transform(df[['t']])\n"
        "both = pd.concat([s, scat, big.t, tidx.a, box['frame'].t])\n"
        "arr.zz_missing_attribute\n"
    )
    answer, found = _check(ea_kernel, cell)
    assert found == []
    handoff = answer.get("handoff")
    assert handoff is not None, answer  # sklearn is not loaded: the cell goes to the helper
    user_names = {"df", "s", "scat", "big", "tidx", "box", "arr"}
    assert user_names <= set(handoff["opaque"]), handoff["opaque"]
    assert not user_names & set(handoff["values"])
    assert "pd" in handoff["module_names"]
