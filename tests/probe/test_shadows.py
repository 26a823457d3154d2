"""Regression tests of issue 11: a check evaluates shadows, never the user's own objects."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch
from torch import nn

from crane_server.probe.interpreter.checker import run_checker
from crane_server.probe.shadows import from_namespace
from crane_server.probe.values import UNKNOWN, Val, closest_name
from tests.conftest import RunningKernel
from tests.probe.kernel_probe import fingerprint, run_probe


class Recorder:
    """Counts every dunder the checker must never call."""

    calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        Recorder.calls.append("getattr")
        raise AttributeError(name)

    def __deepcopy__(self, memo: Any) -> Recorder:
        Recorder.calls.append("deepcopy")
        return self

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        Recorder.calls.append("array")
        return np.zeros(1)

    def __add__(self, other: Any) -> Recorder:
        Recorder.calls.append("add")
        return self

    def __str__(self) -> str:
        Recorder.calls.append("str")
        return "R"

    def __format__(self, spec: str) -> str:
        Recorder.calls.append("format")
        return "R"


class Meta(type):
    def __getattr__(cls, name: str) -> Any:
        Recorder.calls.append("metagetattr")
        raise AttributeError(name)


class WithMeta(metaclass=Meta):
    pass


@pytest.fixture(autouse=True)
def _reset() -> None:
    Recorder.calls.clear()


def test_inplace_relu_never_touches_the_users_tensor() -> None:
    t = torch.tensor([-1.0, 2.0, -3.0])
    relu = nn.ReLU(inplace=True)
    namespace = {"torch": torch, "F": torch.nn.functional, "t": t, "relu": relu}
    for cell in ("y = F.relu(t, inplace=True)", "z = relu(t)", "t.relu_()", "t.add_(1)"):
        run_checker(cell, namespace)
        assert t.tolist() == [-1.0, 2.0, -3.0], cell


def test_batchnorm_running_stats_stay() -> None:
    bn = nn.BatchNorm1d(3)
    x = torch.randn(4, 3)
    run_checker("bn(x)\nbn.train()\nbn(x)", {"bn": bn, "x": x})
    assert bn.running_mean.tolist() == [0.0, 0.0, 0.0]
    assert int(bn.num_batches_tracked) == 0


def test_out_argument_never_writes_into_the_users_array() -> None:
    arr = np.array([1.0, 2.0])
    run_checker("np.add(arr, 1, out=arr)\nnp.negative(arr, out=arr)", {"np": np, "arr": arr})
    assert arr.tolist() == [1.0, 2.0]


def test_shadows_share_no_memory() -> None:
    arr = np.arange(10.0)
    frame = pd.DataFrame({"a": np.arange(3000.0)})
    tensor = torch.arange(5.0)
    shadow_arr = from_namespace(arr)
    shadow_frame = from_namespace(frame)
    shadow_tensor = from_namespace(tensor)
    assert isinstance(shadow_arr, Val) and not np.shares_memory(shadow_arr.obj, arr)
    assert isinstance(shadow_frame, Val) and shadow_frame.sampled and shadow_frame.rows == 3000
    assert not np.shares_memory(shadow_frame.obj["a"].to_numpy(), frame["a"].to_numpy())
    assert isinstance(shadow_tensor, Val)
    assert shadow_tensor.obj.data_ptr() != tensor.data_ptr()


def test_large_tensors_become_meta_and_are_judged() -> None:
    big = torch.zeros(3_000_000)
    shadow = from_namespace(big)
    assert isinstance(shadow, Val) and shadow.obj.is_meta
    assert tuple(shadow.obj.shape) == (3_000_000,)
    findings, errors = run_checker("big.reshape(7, -1)", {"big": big})
    assert errors == [] and len(findings) == 1


def test_frame_attrs_are_never_deep_copied() -> None:
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})
    frame.attrs["rec"] = Recorder()
    run_checker(
        "frame['a'] + 1\nframe.head()\nframe.describe()\nframe['missing']", {"frame": frame}
    )
    assert Recorder.calls == []
    assert frame.attrs["rec"] is not None


def test_user_getattr_array_and_object_elements_are_never_called() -> None:
    rec = Recorder()
    objects = np.array([1] * 55 + [Recorder() for _ in range(5)], dtype=object)
    namespace = {"np": np, "rec": rec, "objects": objects, "WithMeta": WithMeta}
    Recorder.calls.clear()  # numpy itself looks for __array__ while building the test's array
    for cell in (
        "rec.anything",
        "WithMeta.missing",
        "np.array(rec)",
        "np.asarray([rec, rec])",
        "objects + 1",
        "str(objects)",
        "f'{objects}'",
        "objects.sum()",
        "sorted([rec, rec])",
    ):
        run_checker(cell, namespace)
    assert Recorder.calls == []
    assert from_namespace(objects) is UNKNOWN


def test_closest_name_imports_nothing() -> None:
    import sys

    had = "difflib" in sys.modules
    assert closest_name("amout", ["amount", "price"]) == "amount"
    assert closest_name("zzz", ["amount", "price"]) is None
    assert ("difflib" in sys.modules) == had


@pytest.mark.kernel
def test_check_leaves_no_module_on_pandas(kernel: RunningKernel) -> None:
    """On pandas 3 a missing-column check used to leave difflib behind."""
    setup = (
        "import pandas as pd\nimport zmq.utils.garbage\n"
        "df = pd.DataFrame({'amount': [1.0], 'when': pd.to_datetime(['2024-01-01'])})"
    )
    assert kernel.execute(setup)["status"] == "ok"
    before = fingerprint(kernel)["modules"]
    result, _ = run_probe(kernel, "check", {"source": "df['amout']\n"})
    assert [f["code"] for f in result["findings"]] == ["pandas-missing-column"]
    run_probe(kernel, "check", {"source": "df.style\ndf['when'].dt.year"})
    assert sorted(set(fingerprint(kernel)["modules"]) - set(before)) == []


@pytest.mark.kernel
def test_lazy_keras_module_is_not_materialised(kernel: RunningKernel) -> None:
    setup = "import tensorflow as tf\nimport zmq.utils.garbage  # loaded by pyzmq for large replies"
    assert kernel.execute(setup, timeout=180)["status"] == "ok"
    size = "len(object.__getattribute__(tf.__dict__['keras'], '__dict__'))"
    before = kernel.client.execute_interactive(
        "", user_expressions={"n": size}, silent=True, timeout=60, output_hook=lambda m: None
    )["content"]["user_expressions"]["n"]["data"]["text/plain"]
    modules = fingerprint(kernel)["modules"]
    run_probe(kernel, "check", {"source": "opt = tf.keras.optimizers.Adam(lr=0.01)"}, timeout=60)
    after = kernel.client.execute_interactive(
        "", user_expressions={"n": size}, silent=True, timeout=60, output_hook=lambda m: None
    )["content"]["user_expressions"]["n"]["data"]["text/plain"]
    assert after == before
    assert fingerprint(kernel)["modules"] == modules


def test_summaries_never_deep_copy_attrs() -> None:
    from crane_server.probe.snapshot.summarise import summarise_request

    frame = pd.DataFrame({"a": np.arange(30_000.0), "s": ["x"] * 30_000})
    frame.attrs["rec"] = Recorder()
    series = pd.Series([1.0, 2.0], name="v")
    series.attrs["rec"] = Recorder()
    namespace = {"frame": frame, "series": series}
    result = summarise_request({"names": ["frame", "series"]}, namespace=namespace)
    assert Recorder.calls == []
    assert result["variables"]["frame"]["shape"] == [30_000, 2]
    assert result["variables"]["series"]["kind"] == "series"


def test_a_fitted_column_transformer_is_copied_and_a_user_bounded_slice_is_not() -> None:
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    grid = np.column_stack([np.arange(12.0), np.linspace(0, 1, 12)])
    prep = ColumnTransformer([("a", StandardScaler(), [0])], remainder="passthrough")
    priced = make_pipeline(prep, LinearRegression()).fit(grid, grid[:, 1])
    copied = from_namespace(priced)
    # scikit-learn 1.9 keeps slices in the fitted ColumnTransformer (output_indices_)
    assert isinstance(copied, Val) and not copied.live and copied.obj is not priced
    # control: a slice that holds a user object makes the estimator uncopyable, untouched
    priced.steps[0][1].output_indices_ = {"a": slice(Recorder(), 1, None)}
    assert from_namespace(priced) is UNKNOWN or from_namespace(priced).live
    assert Recorder.calls == []
