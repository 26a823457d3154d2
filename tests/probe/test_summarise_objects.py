"""The probe's summaries of real pandas, numpy, torch, sklearn and Python objects, in-process."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.cluster import KMeans
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import FeatureUnion, make_pipeline
from sklearn.preprocessing import FunctionTransformer, LabelEncoder, OneHotEncoder, StandardScaler
from sklearn.utils.validation import check_is_fitted
from torch.utils.data import DataLoader, TensorDataset

from crane_server.probe.snapshot.summarise import summarise_request
from crane_server.protocol.snapshot import RuntimeSnapshot


def assert_subset(actual: Any, expected: Any, path: str = "") -> None:
    """Every key of `expected` is in `actual` with an equal value (recursing into dicts
    and lists of dicts)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: {actual!r} is not a dict"
        for key, value in expected.items():
            assert key in actual, f"{path}.{key} missing from {sorted(actual)}"
            assert_subset(actual[key], value, f"{path}.{key}")
    elif isinstance(expected, list) and expected and isinstance(expected[0], dict):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{path}: {actual!r}"
        for position, (item, wanted) in enumerate(zip(actual, expected)):
            assert_subset(item, wanted, f"{path}[{position}]")
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def summarise_one(value: Any, **payload: Any) -> dict[str, Any]:
    snapshot = summarise_request({"names": ["x"], **payload}, namespace={"x": value})
    text = json.dumps(snapshot, allow_nan=False)  # strict JSON, as Jupyter sends it
    msgspec.json.decode(text, type=RuntimeSnapshot)  # matches the protocol
    return snapshot["variables"]["x"]


def _frame() -> pd.DataFrame:
    n = 50_000
    values = np.arange(n, dtype=float)
    values[7] = np.nan
    return pd.DataFrame(
        {
            "num": values,
            "txt": ["a", "b"] * (n // 2),
            "mixed": ["a", 1.5] * (n // 2),
            "cat": pd.Categorical(["p", "q"] * (n // 2)),
            "when": pd.date_range("2021-01-01", periods=n, freq="h"),
        }
    )


def _fitted_pipeline() -> Any:
    x = np.random.default_rng(0).random((40, 3))
    return make_pipeline(StandardScaler(), LogisticRegression()).fit(x, (x[:, 0] > 0.5))


def _user_function(a: int, b: str = "x", *rest: int, flag: bool = False, **extra: Any) -> None:
    """Join things.

    Longer text."""


class _Positional:
    def __init__(self, size: int = 1, name: str = "n") -> None:
        self.size = size

    def method(self, x: int, /, y: Any = None, *, z: int) -> None:
        pass


class _Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3)
        self.head = torch.nn.Linear(8, 10)


CASES = [
    pytest.param(lambda: 42, {"kind": "int", "stats": {"value": 42}}, id="int"),
    pytest.param(lambda: "x" * 500, {"kind": "str", "length": 500, "truncated": True}, id="str"),
    pytest.param(
        lambda: [1, 2.5, "a"],
        {"kind": "list", "length": 3, "details": {"element_types": ["int", "float", "str"]}},
        id="list",
    ),
    pytest.param(
        lambda: {"a": 1, "b": [2]},
        {"kind": "dict", "length": 2, "details": {"keys": ["a", "b"]}},
        id="dict",
    ),
    pytest.param(lambda: {1, 2, 3}, {"kind": "set", "length": 3}, id="set"),
    pytest.param(lambda: range(0, 10, 2), {"kind": "range", "length": 5}, id="range"),
    pytest.param(
        lambda: _user_function,
        {
            "kind": "function",
            "signature": "(a, b='x', *rest, flag=False, **extra)",
            "details": {
                "parameters": ["a", "b", "*rest", "flag", "**extra"],
                "doc": "Join things.",
            },
        },
        id="function",
    ),
    pytest.param(lambda: len, {"kind": "builtin_function", "signature": "(obj, /)"}, id="builtin"),
    pytest.param(
        lambda: _Positional().method,
        {"kind": "method", "signature": "(x, /, y=None, *, z)"},
        id="bound-method",
    ),
    pytest.param(
        lambda: _Positional,
        {
            "kind": "class",
            "signature": "(size=1, name='n')",
            "details": {"qualname": "_Positional"},
        },
        id="class",
    ),
    pytest.param(lambda: np, {"kind": "module", "module": "numpy"}, id="module"),
    pytest.param(
        lambda: pd.Series([1.0, None, 3.0], name="s"),
        {"kind": "series", "shape": [3], "dtype": "float64", "stats": {"nan": 1, "min": 1.0}},
        id="series",
    ),
    pytest.param(
        lambda: pd.Series(pd.array([1, None, 3], dtype="Int64")),
        {"dtype": "Int64", "stats": {"nan": 1, "min": 1, "max": 3, "unique": 2}},
        id="series-nullable-int",
    ),
    pytest.param(
        lambda: pd.Series(pd.array(["a", None, "b"], dtype="string")),
        {"dtype": "string", "stats": {"nan": 1, "unique": 2}},
        id="series-string-dtype",
    ),
    pytest.param(
        lambda: pd.Series(pd.date_range("2020-01-01", periods=3, tz="UTC")),
        # pandas 3 builds date ranges at microsecond resolution, pandas 2 at nanoseconds.
        {
            "dtype": str(pd.date_range("2020-01-01", periods=1, tz="UTC").dtype),
            "stats": {"nan": 0, "unique": 3},
        },
        id="series-tz-datetime",
    ),
    pytest.param(
        lambda: pd.DataFrame({0: [1.0], 1: [2.0]}),
        {"columns": ["0", "1"], "details": {"column_label_types": ["int"]}},
        id="frame-int-labels",
    ),
    pytest.param(
        lambda: pd.DataFrame({"v": [1]}, index=pd.MultiIndex.from_tuples([(1, "a")])),
        {"index": {"type": "MultiIndex", "first": "(1, a)"}},
        id="frame-multiindex",
    ),
    pytest.param(
        lambda: pd.Index(["a", "b", "a"]),
        {"kind": "index", "length": 3, "index": {"is_unique": False}},
        id="index",
    ),
    pytest.param(
        lambda: pd.Categorical(["a", "b", None]),
        {"kind": "categorical", "length": 3, "stats": {"nan": 1, "n_categories": 2}},
        id="categorical",
    ),
    pytest.param(
        lambda: pd.DataFrame({"k": [1, 1, 2], "v": [1, 2, 3]}).groupby("k")[["v"]],
        {"kind": "groupby", "details": {"keys": ["k"], "selection": ["v"]}, "shape": [3, 2]},
        id="groupby",
    ),
    pytest.param(
        lambda: np.array([[1.0, np.nan], [np.inf, -2.0]]),
        {
            "kind": "ndarray",
            "shape": [2, 2],
            "dtype": "float64",
            "stats": {"nan": 1, "inf": True, "min": -2.0, "max": 1.0},
        },
        id="ndarray",
    ),
    pytest.param(
        lambda: np.array(["a", 1], dtype=object),
        {"kind": "ndarray", "stats": {"types": ["int", "str"]}},
        id="ndarray-object",
    ),
    pytest.param(
        lambda: np.float32(2.5),
        {"kind": "numpy_scalar", "dtype": "float32", "stats": {"value": 2.5}},
        id="numpy-scalar",
    ),
    pytest.param(
        lambda: torch.ones(2, 3, requires_grad=True),
        {
            "kind": "tensor",
            "shape": [2, 3],
            "dtype": "torch.float32",
            "device": "cpu",
            "requires_grad": True,
            "stats": {"min": 1.0, "max": 1.0, "nan": 0},
        },
        id="tensor",
    ),
    pytest.param(
        lambda: torch.empty(4, 5, device="meta"),
        {"kind": "tensor", "shape": [4, 5], "device": "meta"},
        id="tensor-meta",
    ),
    pytest.param(
        lambda: torch.eye(3).to_sparse(),
        {"kind": "tensor", "details": {"layout": "torch.sparse_coo"}},
        id="tensor-sparse",
    ),
    pytest.param(
        lambda: torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)),
        {
            "kind": "torch_module",
            "details": {
                "parameters": {"0.weight": [8, 4], "2.bias": [2]},
                "first_layer": {"in_features": 4, "certain": True},
                "last_layer": {"out_features": 2},
                "training": True,
            },
        },
        id="nn-sequential",
    ),
    pytest.param(
        lambda: torch.nn.Sequential(torch.nn.LazyLinear(4)),
        {
            "details": {
                "parameters": {"0.weight": None},
                "uninitialized_parameters": True,
                "first_layer": {"lazy": True, "type": "LazyLinear"},
                "last_layer": {"out_features": 4},
            }
        },
        id="nn-lazy",
    ),
    pytest.param(
        lambda: torch.nn.LSTM(10, 20, batch_first=True),
        {"details": {"first_layer": {"input_size": 10, "batch_first": True}}},
        id="nn-lstm",
    ),
    pytest.param(
        _Net,
        {
            "kind": "torch_module",
            "details": {
                "first_layer": {"in_channels": 3, "type": "Conv2d", "certain": False},
                "user_defined": True,
            },
        },
        id="nn-user-module",
    ),
    pytest.param(
        lambda: torch.optim.SGD(torch.nn.Linear(2, 1).parameters(), lr=0.5, momentum=0.9),
        {"kind": "optimizer", "details": {"param_groups": [{"lr": 0.5, "momentum": 0.9}]}},
        id="optimizer",
    ),
    pytest.param(
        lambda: DataLoader(TensorDataset(torch.zeros(10, 2)), batch_size=4, shuffle=True),
        {
            "kind": "dataloader",
            "length": 3,
            "details": {
                "batch_size": 4,
                "shuffle": True,
                "dataset": {"length": 10, "details": {"tensor_shapes": [[10, 2]]}},
            },
        },
        id="dataloader",
    ),
    pytest.param(
        _fitted_pipeline,
        {
            "kind": "estimator",
            "fitted": True,
            "details": {"steps": [{"fitted": True}, {"fitted": True}]},
        },
        id="pipeline-fitted",
    ),
    pytest.param(
        lambda: LogisticRegression(C=2.0),
        {"kind": "estimator", "fitted": False, "details": {"params": {"C": 2.0}}},
        id="estimator-unfitted",
    ),
    pytest.param(
        lambda: OneHotEncoder().fit(np.array([["a"], ["b"]], dtype=object)),
        {
            "kind": "estimator",
            "fitted": True,
            "details": {"n_features_in": 1, "categories": [{"n": 2}]},
        },
        id="encoder",
    ),
    pytest.param(
        lambda: ColumnTransformer([("oh", OneHotEncoder(), ["c"])]),
        {"fitted": False, "details": {"transformers": [{"columns": ["c"], "fitted": False}]}},
        id="column-transformer",
    ),
    pytest.param(
        lambda: LogisticRegression().fit(
            pd.DataFrame({"f": [0.0, 1.0, 2.0, 3.0]}), ["n", "y", "n", "y"]
        ),
        {"fitted": True, "details": {"feature_names_in": ["f"], "classes": ["'n'", "'y'"]}},
        id="estimator-fitted-names",
    ),
]


@pytest.mark.parametrize(("factory", "expected"), CASES)
def test_summary_of_object(factory: Callable[[], Any], expected: dict[str, Any]) -> None:
    assert_subset(summarise_one(factory()), expected)


def test_dataframe_structure_dtypes_and_sampled_stats() -> None:
    summary = summarise_one(_frame())
    assert_subset(
        summary,
        {
            "kind": "dataframe",
            "shape": [50_000, 5],
            "columns": ["num", "txt", "mixed", "cat", "when"],
            "index": {"type": "RangeIndex", "start": 0, "stop": 50_000},
            # pandas 3 infers the str dtype for a column of strings, pandas 2 object.
            "dtypes": {"num": "float64", "txt": str(pd.Series(["a"]).dtype), "cat": "category"},
            "stats": {"sampled": True, "sample_rows": 10_000},
        },
    )
    stats = summary["column_stats"]
    assert stats["num"]["nan"] == 1  # the NaN in the head is inside the sample
    assert stats["num"]["min"] == 0.0
    assert stats["num"]["max"] == 49_999.0  # the tail is inside the sample
    assert stats["txt"] == {**stats["txt"], "types": ["str"], "unique": 2, "nan": 0}
    assert stats["mixed"]["types"] == ["float", "str"]
    assert "min" not in stats["mixed"]  # mixed str/float is never ordered
    assert stats["cat"]["n_categories"] == 2


def test_wide_frame_is_capped_but_requested_columns_are_detailed() -> None:
    frame = pd.DataFrame(np.zeros((5, 300)), columns=[f"c{i}" for i in range(300)])
    summary = summarise_one(frame, max_columns=10, detail_columns={"x": ["c250", "nope"]})
    assert summary["columns_total"] == 300
    assert len(summary["columns"]) == 200
    assert summary["truncated"] is True
    assert list(summary["dtypes"]) == [f"c{i}" for i in range(10)] + ["c250"]
    assert "c250" in summary["column_stats"]


@pytest.mark.parametrize(
    ("categories", "present", "absent"),
    [
        pytest.param(["S"], {"shape", "columns"}, {"dtypes", "column_stats"}, id="S"),
        pytest.param(["V"], {"column_stats"}, {"shape", "dtypes"}, id="V"),
        pytest.param(["R"], {"dtypes"}, {"shape", "column_stats"}, id="R"),
    ],
)
def test_categories_switch_fields(
    categories: list[str], present: set[str], absent: set[str]
) -> None:
    summary = summarise_one(pd.DataFrame({"a": [1, 2]}), categories=categories)
    assert present <= set(summary)
    assert not absent & set(summary)


def test_missing_names_builtins_and_kernel_libraries() -> None:
    snapshot = summarise_request(
        {"names": ["df", "undefined_name", "print"]}, namespace={"df": pd.DataFrame(), "np": np}
    )
    assert snapshot["missing"] == ["undefined_name"]
    assert snapshot["variables"]["print"]["kind"] == "builtin_function"
    libraries = snapshot["kernel"]["libraries"]
    assert libraries["pandas"] == pd.__version__
    assert libraries["numpy"] == np.__version__


def _sklearn_says_fitted(estimator: Any) -> bool:
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        return False
    return True


def _xy() -> tuple[Any, Any]:
    x = np.random.default_rng(1).random((30, 3))
    return x, np.arange(30) % 2


ESTIMATORS = [
    pytest.param(lambda: KMeans(2, n_init=1), id="kmeans"),
    pytest.param(lambda: KMeans(2, n_init=1).fit(_xy()[0]), id="kmeans-fitted"),
    pytest.param(lambda: GridSearchCV(LogisticRegression(), {"C": [1.0, 2.0]}), id="grid"),
    pytest.param(
        lambda: GridSearchCV(LogisticRegression(), {"C": [1.0, 2.0]}, cv=2).fit(*_xy()),
        id="grid-fitted",
    ),
    pytest.param(FunctionTransformer, id="function-transformer"),
    pytest.param(lambda: FeatureUnion([("a", StandardScaler())]), id="feature-union"),
    pytest.param(lambda: FeatureUnion([("a", StandardScaler())]).fit(_xy()[0]), id="union-fit"),
    pytest.param(lambda: make_pipeline(StandardScaler(), "passthrough"), id="pipe-passthrough"),
    pytest.param(lambda: make_pipeline(StandardScaler(), LogisticRegression()), id="pipe"),
    pytest.param(lambda: LabelEncoder().fit(["a", "b"]), id="label-encoder"),
]


@pytest.mark.parametrize("factory", ESTIMATORS)
def test_fitted_state_agrees_with_sklearn(factory: Callable[[], Any]) -> None:
    estimator = factory()
    assert summarise_one(estimator)["fitted"] is _sklearn_says_fitted(estimator)
