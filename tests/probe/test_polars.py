"""polars in a real kernel: plan-level crashes found from schemas, never by collecting."""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import check_quietly, read_silently, run_probe

pytestmark = pytest.mark.kernel

SETUP = """
import polars as pl
sales = pl.DataFrame({
    "region": ["n", "s", "n"],
    "revenue": [10, 20, 30],
    "label": ["a", "b", "c"],
    "code": ["1", "2", "x"],
})
lsales = sales.lazy()
stores = pl.DataFrame({"region": [1, 2], "city": ["A", "B"]})
lstores = stores.lazy()
other = pl.DataFrame({"region": ["n"], "rev": [1.5]})
lother = other.lazy()
"""
# Counts every collect (LazyFrame.collect, collect_all): installed before any check.
TRIPWIRE = """
_collects = [0]
def _tripwire(original):
    def counted(*args, **kwargs):
        _collects[0] += 1
        return original(*args, **kwargs)
    return counted
pl.LazyFrame.collect = _tripwire(pl.LazyFrame.collect)
pl.collect_all = _tripwire(pl.collect_all)
"""
BIG = "big = pl.LazyFrame().select(pl.int_range(0, 100_000_000).alias('a'))"


@pytest.fixture(scope="module")
def polars_kernel(runtime_dir: Path) -> Iterator[RunningKernel]:
    running = RunningKernel(runtime_dir)
    try:
        for cell in (SETUP, TRIPWIRE, BIG):
            assert running.execute(cell)["status"] == "ok"
        yield running
    finally:
        running.shutdown()


check = check_quietly


def _count(kernel: RunningKernel) -> int:
    return int(read_silently(kernel, "_collects[0]"))


CRASHES = [
    pytest.param(
        "sales.select(pl.col('revenu'))", "ColumnNotFoundError", 1, "revenue", id="select"
    ),
    pytest.param(
        "out = sales.with_columns(double=pl.col('revnue') * 2)",
        "ColumnNotFoundError",
        1,
        "revenue",
        id="with_columns",
    ),
    pytest.param(
        "sales.filter(pl.col('regin') == 'n')", "ColumnNotFoundError", 1, "region", id="filter"
    ),
    pytest.param(
        "sales.group_by('region').agg(pl.col('revenu').sum())",
        "ColumnNotFoundError",
        1,
        "revenue",
        id="group_by-agg",
    ),
    pytest.param("x = 1\nsales.sort('revenu')", "ColumnNotFoundError", 2, "revenue", id="sort"),
    pytest.param("sales['revenu']", "ColumnNotFoundError", 1, "revenue", id="getitem"),
    pytest.param(
        "plan = lsales.select(pl.col('revenu'))\nplan.collect()",
        "ColumnNotFoundError",
        2,
        "revenue",
        id="lazy-select-at-collect",
    ),
    pytest.param(
        "result = (\n    lsales.filter(pl.col('region') == 'n')\n    .group_by('regin')\n"
        "    .agg(pl.col('revenue').sum())\n    .sort('region')\n)\nresult.collect()",
        "ColumnNotFoundError",
        7,
        "region",
        id="lazy-group_by-chain",
    ),
    pytest.param(
        "top = (\n    lsales.with_columns(pl.col('revenue') * 2)\n    .sort('revenu')\n    .collect()\n)",
        "ColumnNotFoundError",
        4,
        "revenue",
        id="lazy-sort-collect-line",
    ),
    pytest.param(
        "lsales.filter(pl.col('regon') == 'n').collect_schema()",
        "ColumnNotFoundError",
        1,
        "region",
        id="lazy-filter-collect_schema",
    ),
    pytest.param(
        "sales.group_by('region').agg(pl.col('label').sum())",
        "InvalidOperationError",
        1,
        None,
        id="sum-of-strings",
    ),
    pytest.param(
        "sales.with_columns(nxt=pl.col('label') + 1)",
        "InvalidOperationError",
        1,
        None,
        id="str-plus-int",
    ),
    pytest.param("sales.join(stores, on='region')", "SchemaError", 1, None, id="join-key-dtypes"),
    pytest.param(
        "joined = lsales.join(lstores, on='region', how='left')\njoined.collect()",
        "SchemaError",
        2,
        None,
        id="lazy-join-key-dtypes",
    ),
    pytest.param("pl.concat([sales, other])", "ShapeError", 1, None, id="concat-widths"),
    pytest.param(
        "both = pl.concat([lsales, lother])\nboth.collect()",
        "InvalidOperationError",
        2,
        None,
        id="lazy-concat-schemas",
    ),
    pytest.param(
        "sales.rename({'code': 'label'})", "DuplicateError", 1, None, id="rename-duplicate"
    ),
]


@pytest.mark.parametrize(("source", "exception", "line", "closest"), CRASHES)
def test_plan_level_crash_is_found(
    polars_kernel: RunningKernel, source: str, exception: str, line: int, closest: str | None
) -> None:
    findings = check(polars_kernel, source)["findings"]
    assert len(findings) == 1, findings
    finding = findings[0]
    assert finding["exception"] == exception
    assert finding["line"] == line
    if closest is not None:
        assert finding["code"] == "polars-missing-column"
        assert finding["evidence"]["closest"] == closest
        assert [r["new_text"] for r in finding["replacements"]] == [repr(closest)]


@pytest.mark.parametrize(
    ("source", "fix"),
    [
        pytest.param("sales.groupby('region')", "group_by", id="groupby"),
        pytest.param("sales.iloc[0]", None, id="iloc"),
        pytest.param("lsales.shape", None, id="lazy-shape"),
        pytest.param(
            "sales.select('revenue').sort_values('revenue')", "sort", id="derived-sort_values"
        ),
    ],
)
def test_pandas_only_attribute(polars_kernel: RunningKernel, source: str, fix: str | None) -> None:
    findings = check(polars_kernel, source)["findings"]
    assert [f["exception"] for f in findings] == ["AttributeError"]
    if fix is not None:
        assert fix in findings[0]["fix"]


CLEAN = [
    pytest.param("sales.select(pl.col('revenue'))", id="select"),
    pytest.param("out = sales.with_columns(double=pl.col('revenue') * 2)", id="with_columns"),
    pytest.param("sales.filter(pl.col('region') == 'n')", id="filter"),
    pytest.param("sales.group_by('region').agg(pl.col('revenue').sum())", id="group_by-agg"),
    pytest.param("sales.sort('revenue')", id="sort"),
    pytest.param("plan = lsales.select(pl.col('revenue'))\nplan.collect()", id="lazy-select"),
    pytest.param(
        "result = (\n    lsales.filter(pl.col('region') == 'n')\n    .group_by('region')\n"
        "    .agg(pl.col('revenue').sum())\n    .sort('region')\n)\nresult.collect()",
        id="lazy-chain",
    ),
    pytest.param("sales.with_columns(nxt=pl.col('label') + 'x')", id="str-plus-str"),
    pytest.param(
        "sales.join(stores.with_columns(pl.col('region').cast(pl.String)), on='region')",
        id="join-cast",
    ),
    pytest.param("pl.concat([sales, sales])", id="concat"),
    pytest.param("sales.group_by('region').len()", id="group_by-len"),
    # a strict cast that fails on the value 'x' only: data-dependent, never reported
    pytest.param("sales.with_columns(pl.col('code').cast(pl.Int64))", id="cast-on-values"),
    pytest.param("lsales.with_columns(pl.col('code').cast(pl.Int64)).collect()", id="lazy-cast"),
    # user code in the plan: the plan is not built, so the missing column after it is not seen
    pytest.param(
        "sales.with_columns(pl.col('revenue').map_elements(lambda v: v * 2, "
        "return_dtype=pl.Int64).alias('r')).select('nope')",
        id="map_elements-not-planned",
    ),
]


@pytest.mark.parametrize("source", CLEAN)
def test_fixed_and_data_dependent_cells_report_nothing(
    polars_kernel: RunningKernel, source: str
) -> None:
    result = check(polars_kernel, source)
    assert result["findings"] == []


def test_a_check_never_collects(polars_kernel: RunningKernel) -> None:
    before = _count(polars_kernel)
    for source, *_ in [p.values for p in CRASHES + CLEAN]:
        check(polars_kernel, str(source))
    check(polars_kernel, "big.with_columns(b=pl.col('a') * 2).select('nope').collect()")
    run_probe(polars_kernel, "summarise", {"names": ["sales", "lsales", "big"]})
    assert _count(polars_kernel) == before
    # the tripwire fires: a real collect moves the counter
    assert polars_kernel.execute("lsales.collect()")["status"] == "ok"
    assert _count(polars_kernel) == before + 1


def test_a_hundred_million_row_plan_is_checked_from_its_schema(
    polars_kernel: RunningKernel,
) -> None:
    source = (
        "step = big.with_columns(b=pl.col('a') * 2).filter(pl.col('b') > 10)\n"
        "step.group_by('b').agg(pl.col('c').sum()).collect()"
    )
    timings = []
    for _ in range(7):
        result = check(polars_kernel, source)
        assert [f["exception"] for f in result["findings"]] == ["ColumnNotFoundError"]
        assert result["findings"][0]["line"] == 2
        timings.append(result["check_ms"])
    print("1e8-row LazyFrame check, median ms:", statistics.median(timings))


def test_summaries_of_polars_objects(polars_kernel: RunningKernel) -> None:
    setup = "s = pl.Series('v', [1.5, None, 3.0])\nlazy_big = big.with_columns(b=pl.col('a') > 3)"
    assert polars_kernel.execute(setup)["status"] == "ok"
    before = _count(polars_kernel)
    snapshot, iopub = run_probe(polars_kernel, "summarise", {"names": ["sales", "lazy_big", "s"]})
    assert {message["msg_type"] for message in iopub} == {"status"}
    frame = snapshot["variables"]["sales"]
    assert frame["kind"] == "polars_dataframe"
    assert frame["shape"] == [3, 4]
    assert frame["columns"] == ["region", "revenue", "label", "code"]
    assert frame["dtypes"] == {
        "region": "String",
        "revenue": "Int64",
        "label": "String",
        "code": "String",
    }
    assert frame["column_stats"]["revenue"]["null"] == 0
    assert frame["column_stats"]["region"]["examples"] == ["'n'", "'s'", "'n'"]
    lazy = snapshot["variables"]["lazy_big"]
    assert lazy["kind"] == "polars_lazyframe"
    assert lazy["columns"] == ["a", "b"]
    assert lazy["dtypes"] == {"a": "Int64", "b": "Boolean"}
    assert lazy["shape"] == [None, 2]
    assert "column_stats" not in lazy and "length" not in lazy
    series = snapshot["variables"]["s"]
    assert series["kind"] == "polars_series"
    assert series["length"] == 3
    assert series["dtype"] == "Float64"
    assert series["stats"]["null"] == 1
    assert _count(polars_kernel) == before  # the LazyFrame's schema came from its plan alone
