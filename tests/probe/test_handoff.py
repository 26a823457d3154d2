"""What a hand-off carries: pickles of library shadows only, never the user's objects."""

from __future__ import annotations

import ast
import functools
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.linear_model import LinearRegression
from sklearn.preprocessing import FunctionTransformer

from crane_server.probe.interpreter import handoff
from crane_server.probe.interpreter.checker import Checker
from crane_server.probe.values import OPAQUE, UNKNOWN, Val

CALLS: list[str] = []


class Tripwire:
    """Records every hook the pickler could use to run user code."""

    def __reduce_ex__(self, protocol: int) -> Any:
        CALLS.append("reduce_ex")
        return (Tripwire, ())

    def __reduce__(self) -> Any:
        CALLS.append("reduce")
        return (Tripwire, ())

    def __getstate__(self) -> Any:
        CALLS.append("getstate")
        return {}


class UserFrame(pd.DataFrame):
    pass


def user_function(x: Any) -> Any:
    return x


@pytest.fixture(autouse=True)
def _clear() -> None:
    CALLS.clear()


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(pd.DataFrame({"a": [1.0, np.nan], "b": ["x", "y"]}), id="frame"),
        pytest.param(pd.Series([1, 2, 3], name="s"), id="series"),
        pytest.param(np.arange(12.0).reshape(3, 4), id="array"),
        pytest.param(torch.empty(1000, 1000, device="meta"), id="meta-tensor"),
        pytest.param(torch.nn.Linear(3, 2), id="layer"),
        pytest.param(LinearRegression().fit([[0.0], [1.0]], [0.0, 1.0]), id="fitted-estimator"),
        pytest.param(np.log, id="ufunc"),
        pytest.param(pd.DataFrame, id="library-class"),
        pytest.param(
            pd.DataFrame({"s": pd.array(["x", None], dtype="string[pyarrow]")}),
            id="frame-of-pyarrow-strings",
        ),
        pytest.param(functools.partial(np.round, decimals=2), id="partial-of-library"),
        pytest.param({"k": [1, (2.5, "x")]}, id="plain-containers"),
    ],
)
def test_library_values_are_packed_and_come_back_equal(value: Any) -> None:
    data = handoff.pack(value, handoff.MAX_VALUE_BYTES)
    assert data is not None
    back = handoff.unpack(data)
    assert type(back) is type(value)
    if isinstance(value, pd.DataFrame):
        pd.testing.assert_frame_equal(back, value)
    elif isinstance(value, np.ndarray):
        assert np.array_equal(back, value)
    elif isinstance(value, torch.Tensor):
        assert back.shape == value.shape and back.device.type == "meta"


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(Tripwire(), id="user-instance"),
        pytest.param([1, Tripwire()], id="user-instance-in-a-list"),
        pytest.param(np.array([1, Tripwire()], dtype=object), id="object-array"),
        pytest.param(UserFrame({"a": [1]}), id="user-subclass-of-a-frame"),
        pytest.param(user_function, id="user-function"),
        pytest.param(lambda x: x, id="lambda"),
        pytest.param(FunctionTransformer(func=user_function), id="estimator-holding-user-code"),
        pytest.param(functools.partial(user_function, 1), id="partial-of-user-code"),
        pytest.param(Tripwire, id="user-class"),
    ],
)
def test_user_objects_are_refused_without_running_their_hooks(value: Any) -> None:
    assert handoff.pack(value, handoff.MAX_VALUE_BYTES) is None
    assert CALLS == []


def test_a_value_over_its_cap_is_refused() -> None:
    assert handoff.pack(np.zeros(100_000), 10_000) is None
    assert handoff.pack(np.zeros(100), 10_000) is not None


def test_the_unpickler_loads_only_library_globals() -> None:
    import pickle

    with pytest.raises(pickle.UnpicklingError):
        handoff.unpack(pickle.dumps(Tripwire))
    with pytest.raises(pickle.UnpicklingError):
        handoff.unpack(b"cbuiltins\neval\n(S'1'\ntR.")
    # pyarrow's storage module may be loaded (frames need it), its filesystems may not
    with pytest.raises(pickle.UnpicklingError):
        handoff.unpack(b"cpyarrow._fs\nLocalFileSystem\n)R.")


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        pytest.param("model.fit(X, y)", {"model", "X", "y"}, id="names"),
        pytest.param("df.query('a > @limit')", {"df", "limit"}, id="query-at-name"),
        pytest.param("def f():\n    global g\n    return h", {"g", "h"}, id="function-body"),
    ],
)
def test_read_names_covers_what_the_cell_can_read(cell: str, expected: set[str]) -> None:
    assert expected <= handoff.read_names(ast.parse(cell))


def test_build_packs_shadows_and_marks_the_rest_opaque() -> None:
    big = pd.DataFrame({"a": np.arange(5000.0)})
    namespace = {"big": big, "np": np, "thing": Tripwire(), "fn": user_function, "unused": 1}
    tree = ast.parse("from sklearn.ensemble import RandomForestRegressor\nbig\nnp\nthing\nfn(1)")
    checker = Checker(tree, [], namespace)
    request = handoff.build(checker, "code", 0, ["sklearn.ensemble", "not_a_library.x"])
    assert request is not None
    assert request["modules"] == ["sklearn.ensemble"]  # only libraries are imported there
    assert request["module_names"] == {"np": "numpy"}
    assert sorted(request["opaque"]) == ["fn", "thing"]
    packed = request["values"]["big"]
    assert packed["sampled"] is True and packed["rows"] == 5000  # the true size travels along
    assert "unused" not in request["values"]
    assert CALLS == []


def test_the_helpers_namespace_keeps_the_true_size_and_hides_opaque_names() -> None:
    big = pd.DataFrame({"a": np.arange(5000.0)})
    namespace = {"big": big, "thing": Tripwire()}
    checker = Checker(ast.parse("import sklearn.svm\nbig\nthing"), [], namespace)
    request = handoff.build(checker, "code", 0, ["sklearn.svm"])
    assert request is not None
    rebuilt, tracked = handoff.namespace_of(request)
    assert rebuilt["thing"] is OPAQUE
    value = tracked[id(rebuilt["big"])]
    assert isinstance(value, Val) and value.sampled and value.rows == 5000
    helper_side = Checker(ast.parse("thing"), [], rebuilt, tracked=tracked)
    assert helper_side.wrap(rebuilt["thing"]) is UNKNOWN
