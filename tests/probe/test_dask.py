"""dask.dataframe in a real kernel: graph-build crashes found from metadata, never computed.

Every crash below is first raised by the real dask call in this process (the same setup,
the same line), so each rule is held to what dask itself does at the call.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import check_quietly, read_silently, run_probe

pytestmark = pytest.mark.kernel

SETUP = """
import numpy as np
import pandas as pd
import dask.array as da
import dask.dataframe as dd
idx = pd.date_range("2024-01-01", periods=48, freq="h")
sales_pd = pd.DataFrame(
    {"region": ["n", "s"] * 24, "revenue": np.arange(48.0), "label": ["a/b"] * 48,
     "qty": np.arange(48)},
    index=idx,
)
sales = dd.from_pandas(sales_pd, npartitions=4)
unsorted = sales.clear_divisions()
one = dd.from_pandas(pd.DataFrame({"region": ["n"]}), npartitions=1)
many = dd.from_pandas(pd.DataFrame({"region": ["n", "s", "e", "w"]}), npartitions=2)
scores = da.from_array(np.arange(200.0), chunks=50)
"""
# Counts every compute: the threaded and synchronous schedulers both run get_async, looked
# up in their modules' globals; dask.compute and the collections' methods are counted too.
TRIPWIRE = """
import dask, dask.base, dask.local, dask.threaded
from dask.dataframe.dask_expr import _collection
_computes = [0]
def _tripwire(original):
    def counted(*args, **kwargs):
        _computes[0] += 1
        return original(*args, **kwargs)
    return counted
dask.local.get_async = _tripwire(dask.local.get_async)
dask.threaded.get_async = _tripwire(dask.threaded.get_async)
dask.base.compute = _tripwire(dask.base.compute)
dask.compute = dask.base.compute
for _name in ("compute", "persist", "head", "__len__"):
    setattr(_collection.FrameBase, _name, _tripwire(getattr(_collection.FrameBase, _name)))
"""
LATE = "indexed = sales_pd.reset_index().pipe(dd.from_pandas, npartitions=3).set_index('qty')"


@pytest.fixture(scope="module")
def dask_kernel(runtime_dir: Path) -> Iterator[RunningKernel]:
    running = RunningKernel(runtime_dir)
    try:
        for cell in (SETUP, TRIPWIRE, LATE):
            assert running.execute(cell)["status"] == "ok"
        yield running
    finally:
        running.shutdown()


check = check_quietly


def _count(kernel: RunningKernel) -> int:
    content = {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {"n": "_computes[0]"},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    reply = kernel.client.execute(**content, reply=True, timeout=30)
    return int(reply["content"]["user_expressions"]["n"]["data"]["text/plain"])


def _raised_by_dask(source: str) -> str:
    """The exception the real dask raises for `source` (built, never computed), here."""
    namespace: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # from_array warns before it raises
        exec(SETUP + LATE, namespace)
        try:
            exec(source, namespace)
        except Exception as exc:
            return type(exc).__name__
    return "nothing"


CRASHES = [
    pytest.param("sales['revenu']", "KeyError", "dask-missing-column", id="getitem"),
    pytest.param("sales[['region', 'revenu']]", "KeyError", "dask-missing-column", id="getitems"),
    pytest.param("sales.groupby('regin')", "KeyError", "dask-missing-column", id="groupby"),
    pytest.param(
        "sales.groupby('region')['revenu'].sum()",
        "KeyError",
        "dask-missing-column",
        id="groupby-getitem",
    ),
    pytest.param(
        "sales.groupby('region').agg({'revenu': 'sum'})",
        "KeyError",
        "dask-missing-column",
        id="groupby-agg-dict",
    ),
    pytest.param("sales.drop(columns='lbl')", "KeyError", "dask-missing-column", id="drop-col"),
    pytest.param("sales.set_index('regn')", "KeyError", "dask-missing-column", id="set_index"),
    pytest.param("sales.astype({'qtty': float})", "KeyError", "dask-missing-column", id="astype"),
    pytest.param("sales.dropna(subset=['qtty'])", "KeyError", "dask-missing-column", id="dropna"),
    pytest.param("sales.merge(one, on='regon')", "KeyError", "dask-missing-column", id="merge"),
    pytest.param("sales['label'] + 1", "TypeError", "dask-dtype-error", id="str-plus-int"),
    pytest.param("sales.drop('label')", "NotImplementedError", "dask-drop-rows", id="drop-rows"),
    pytest.param(
        "sales['label'].str.split('/', expand=True)",
        "NotImplementedError",
        "dask-split-without-n",
        id="split-expand-without-n",
    ),
    pytest.param(
        "sales['label'].str.split('/', n=1, exapnd=True)",
        "TypeError",
        "dask-bad-arguments",
        id="misspelt-keyword",
    ),
    pytest.param(
        "sales['qty'].str.upper()", "AttributeError", "dask-accessor-dtype", id="str-of-int"
    ),
    pytest.param(
        "sales['region'].dt.year", "AttributeError", "dask-accessor-dtype", id="dt-of-text"
    ),
    pytest.param(
        "sales[sales['region'].isin(many['region'])]",
        "NotImplementedError",
        "dask-isin-collection",
        id="isin-dask-series",
    ),
    pytest.param("sales.assign(x=[1] * 48)", "TypeError", "dask-assign-type", id="assign-list"),
    pytest.param("sales.assign(x=sales)", "TypeError", "dask-assign-type", id="assign-frame"),
    pytest.param(
        "unsorted['revenue'].rolling('2h').mean()",
        "ValueError",
        "dask-unknown-divisions",
        id="rolling-unknown-divisions",
    ),
    pytest.param(
        "unsorted.resample('1h').mean()",
        "ValueError",
        "dask-unknown-divisions",
        id="resample-unknown-divisions",
    ),
    pytest.param(
        "v = sales['revenue'].values\nv[:5]", "ValueError", "dask-unknown-chunks", id="values-slice"
    ),
    pytest.param(
        "v = sales['revenue'].values\nv[np.ones(48, bool)]",
        "ValueError",
        "dask-unknown-chunks",
        id="values-mask",
    ),
    pytest.param("sales.iloc[0]", "NotImplementedError", "dask-iloc-rows", id="iloc-row"),
    pytest.param("sales.iloc[0:3, 0]", "NotImplementedError", "dask-iloc-rows", id="iloc-rows"),
    pytest.param(
        "da.from_array(sales, chunks=(5, 4))",
        "AttributeError",
        "dask-from-array-frame",
        id="from_array-frame",
    ),
    pytest.param(
        "above = scores[scores > 0]\nabove * scores",
        "ValueError",
        "dask-array-shape",
        id="unknown-length-times-known",
    ),
    pytest.param(
        "counts, edges = da.histogram(scores, bins=40)",
        "ValueError",
        "dask-histogram-range",
        id="histogram-without-range",
    ),
    pytest.param(
        "sales.groupby('region').get_partition(0)",
        "AttributeError",
        "dask-missing-attribute",
        id="groupby-get_partition",
    ),
    pytest.param("sales.applymap(str)", "AttributeError", "dask-missing-attribute", id="applymap"),
]


@pytest.mark.parametrize(("source", "exception", "code"), CRASHES)
def test_graph_build_crash_is_found(
    dask_kernel: RunningKernel, source: str, exception: str, code: str
) -> None:
    assert _raised_by_dask(source) == exception  # the real dask call raises it, uncomputed
    findings = check(dask_kernel, source)["findings"]
    assert [(f["exception"], f["code"]) for f in findings] == [(exception, code)], findings
    assert findings[0]["line"] == source.count("\n") + 1


def test_missing_column_names_the_closest(dask_kernel: RunningKernel) -> None:
    finding = check(dask_kernel, "sales.groupby('region')['revenu'].sum()")["findings"][0]
    assert finding["evidence"]["closest"] == "revenue"
    assert [r["new_text"] for r in finding["replacements"]] == ["'revenue'"]


CLEAN = [
    pytest.param("sales['revenue']", id="getitem"),
    pytest.param("sales[['region', 'revenue']]", id="getitems"),
    pytest.param("sales.groupby('region')['revenue'].sum()", id="groupby-getitem"),
    pytest.param("sales.groupby('region').agg({'revenue': 'sum'})", id="groupby-agg-dict"),
    pytest.param("sales.groupby('region').revenue.sum()", id="groupby-attribute"),
    pytest.param("sales.drop(columns='label')", id="drop-columns"),
    pytest.param("sales.drop('label', axis=1)", id="drop-axis-1"),
    pytest.param("sales.set_index('region')", id="set_index"),
    pytest.param("sales.astype({'qty': float})", id="astype"),
    pytest.param("sales.dropna(subset=['qty'])", id="dropna"),
    pytest.param("sales.merge(one, on='region')", id="merge"),
    pytest.param("sales['qty'] + 1", id="int-plus-int"),
    pytest.param("sales['label'].str.split('/', n=1, expand=True)", id="split-with-n"),
    pytest.param("sales['label'].str.upper()", id="str-of-text"),
    pytest.param("sales[sales['region'].isin(['n'])]", id="isin-list"),
    pytest.param("sales[sales['region'].isin(one['region'])]", id="isin-one-partition"),
    pytest.param("sales.assign(x=sales['qty'])", id="assign-series"),
    pytest.param("sales['revenue'].rolling('2h').mean()", id="rolling-known-divisions"),
    pytest.param("sales[['revenue']].resample('1h').mean()", id="resample-known-divisions"),
    pytest.param("v = sales[['revenue', 'qty']].values\nv[:, 0]", id="values-all-rows"),
    pytest.param("sales.iloc[:, 0]", id="iloc-columns"),
    # sort_values on a missing column is only refused when the graph runs: never reported
    pytest.param("sales.sort_values('revenu')", id="sort_values-at-compute"),
    pytest.param("sales.apply(lambda r: r['nope'], axis=1, meta=(None, 'f8'))", id="apply"),
    pytest.param("above = scores[scores > 0]\nabove * 2", id="unknown-length-times-number"),
    pytest.param("counts, edges = da.histogram(scores, bins=40, range=(0, 200))", id="histogram"),
    pytest.param("sales.revenue.mean().compute()", id="compute-call"),
    pytest.param("len(sales)", id="len"),
    pytest.param("indexed.divisions", id="divisions-not-yet-known"),
    pytest.param("indexed['revenue'].rolling(3).mean()", id="rolling-after-set_index"),
]


@pytest.mark.parametrize("source", [p.values[0] for p in CLEAN], ids=[p.id for p in CLEAN])
def test_fixed_and_compute_time_cells_report_nothing(
    dask_kernel: RunningKernel, source: str
) -> None:
    assert _raised_by_dask(source) == "nothing"  # dask builds it fine
    assert check(dask_kernel, source)["findings"] == []


# dask raises these at the call, after running the user's function on a fake partition to
# infer the meta: the checker never calls user code, so it judges nothing after it.
USER_CODE = [
    pytest.param("sales.map_partitions(lambda p: p)['nope']", id="map_partitions"),
    pytest.param("sales.apply(lambda r: r['nope'], axis=1)", id="apply-without-meta"),
]


@pytest.mark.parametrize("source", [p.values[0] for p in USER_CODE], ids=[p.id for p in USER_CODE])
def test_user_code_is_never_called(dask_kernel: RunningKernel, source: str) -> None:
    assert check(dask_kernel, source)["findings"] == []


# Cells that hand dask collections to code that would compute them (numpy, builtins).
HANDED_ON = [
    "np.asarray(scores > 0)",
    "np.asarray([scores > 0])",
    "x = sales == sales\nnp.asarray(x)",
    "float((scores > 0).sum())",
    "list(scores > 0)",
    "sorted(scores > 0)",
    "y = sales['qty'] > 1\nlen(y)",
    "y = sales['qty'] > 1\nbool(y.sum())",
    "np.array(sales)",
    "pd.DataFrame(sales)",
    "sales.qty.compute()",
    "dask.compute(sales.qty.sum())",
    "sales.persist()",
    "sales.head()",
]


def test_a_check_never_computes(dask_kernel: RunningKernel) -> None:
    before = _count(dask_kernel)
    for source, *_ in [p.values for p in CRASHES + CLEAN + USER_CODE]:
        check(dask_kernel, str(source))
    for source in HANDED_ON:
        assert check(dask_kernel, source)["findings"] == [], source
    run_probe(dask_kernel, "summarise", {"names": ["sales", "unsorted", "indexed"]})
    assert _count(dask_kernel) == before
    # the tripwire fires: a real compute moves the counter
    assert dask_kernel.execute("sales.revenue.sum().compute()")["status"] == "ok"
    assert _count(dask_kernel) > before


def test_summaries_of_dask_objects(dask_kernel: RunningKernel) -> None:
    assert dask_kernel.execute("rev = sales['revenue']")["status"] == "ok"
    before = _count(dask_kernel)
    names = ["sales", "unsorted", "rev", "indexed"]
    snapshot, iopub = run_probe(dask_kernel, "summarise", {"names": names})
    assert {message["msg_type"] for message in iopub} == {"status"}
    frame = snapshot["variables"]["sales"]
    assert frame["kind"] == "dask_dataframe"
    assert frame["columns"] == ["region", "revenue", "label", "qty"]
    assert frame["dtypes"]["qty"] == "int64"
    assert frame["shape"] == [None, 4]
    assert frame["details"]["npartitions"] == 4
    assert frame["details"]["known_divisions"] is True
    assert snapshot["variables"]["unsorted"]["details"]["known_divisions"] is False
    series = snapshot["variables"]["rev"]
    assert series["kind"] == "dask_series"
    assert series["dtype"] == "float64"
    assert "known_divisions" not in snapshot["variables"]["indexed"]["details"]
    assert _count(dask_kernel) == before  # metadata alone


ATTRS = """
class _Copied:
    copies = 0
    def __deepcopy__(self, memo):
        type(self).copies += 1
        return self
tagged = dd.from_pandas(sales_pd.assign(), npartitions=2)
tagged._meta.attrs["owner"] = _Copied()
"""


def test_a_meta_with_user_attrs_is_never_deep_copied(dask_kernel: RunningKernel) -> None:
    """pandas deep-copies a frame's attrs into each result: the checker replays on a copy
    without them, so the user's `__deepcopy__` is never called."""
    assert dask_kernel.execute(ATTRS)["status"] == "ok"
    copies = "_Copied.copies"
    for source in ("tagged['revenu']", "tagged.revenue * 2", "tagged.groupby('regio')"):
        check(dask_kernel, source)
    assert read_silently(dask_kernel, copies) == "0"
    found = check(dask_kernel, "tagged['revenu']")["findings"]
    assert [f["code"] for f in found] == ["dask-missing-column"]
    # control: the same operation on the user's own meta calls it
    assert dask_kernel.execute("tagged._meta['revenue'] * 2")["status"] == "ok"
    assert read_silently(dask_kernel, copies) != "0"
