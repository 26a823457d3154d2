"""Summaries of polars DataFrame, LazyFrame and Series objects.

S: the schema's column names and the height (a DataFrame's and a Series' are metadata).
R: the dtypes. V: null counts (`null`; polars keeps them with each column's validity, so
reading them scans nothing) and the first few values of each column (`head`, a zero-copy
slice). A LazyFrame is only asked for its schema (`collect_schema()`, the plan alone): it is
never collected, described or fetched, so its height and values are not reported.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional

from .base import SummaryOptions, safe_label, safe_repr

# Rows shown as examples per column (V).
PREVIEW_ROWS = 3

_KINDS = (
    ("DataFrame", "polars_dataframe"),
    ("LazyFrame", "polars_lazyframe"),
    ("Series", "polars_series"),
)


def polars_kind(obj: Any) -> Optional[str]:
    pl = sys.modules.get("polars")
    if pl is None:
        return None
    for attribute, kind in _KINDS:
        if type(obj) is getattr(pl, attribute, None):  # exact types: no user subclass
            return kind
    return None


def summarise_polars(obj: Any, kind: str, out: Dict[str, Any], opts: SummaryOptions) -> None:
    out["kind"] = kind
    if kind == "polars_series":
        _series(obj, out, opts)
        return
    schema = obj.collect_schema() if kind == "polars_lazyframe" else obj.schema
    names: List[str] = list(schema.names())
    shown = names[: opts.max_column_names]
    details = out.setdefault("details", {"library": "polars"})
    if opts.structure:
        out["columns"] = [safe_label(name, 60) for name in shown]
        out["columns_total"] = len(names)
        if kind == "polars_dataframe":
            height = int(obj.height)
            out["shape"] = [height, len(names)]
            out["length"] = height
        else:
            out["shape"] = [None, len(names)]
            details["lazy"] = "schema only: the plan is never collected"
    if len(names) > len(shown):
        out["truncated"] = True
    detailed = names[: opts.max_columns]
    if opts.representation:
        out["dtypes"] = {safe_label(name, 60): str(schema[name]) for name in detailed}
    if kind != "polars_dataframe" or not opts.values or not detailed:
        return
    head = obj.head(PREVIEW_ROWS)
    stats: Dict[str, Dict[str, Any]] = {}
    for name in detailed:
        if opts.out_of_time():
            out["truncated"] = True
            break
        stats[safe_label(name, 60)] = {
            "null": int(obj.get_column(name).null_count()),
            "examples": _examples(head.get_column(name), opts),
            "sampled": False,
        }
    out["column_stats"] = stats


def _series(series: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    length = int(series.len())
    if opts.structure:
        out["shape"] = [length]
        out["length"] = length
        details = out.setdefault("details", {"library": "polars"})
        details["series_name"] = safe_label(series.name, 60)
    if opts.representation:
        out["dtype"] = str(series.dtype)
    if opts.values:
        out["stats"] = {
            "null": int(series.null_count()),
            "examples": _examples(series.head(PREVIEW_ROWS), opts),
            "sampled": False,
        }


def _examples(column: Any, opts: SummaryOptions) -> List[str]:
    """The first values as text: primitives' own repr; anything else by its type name."""
    pl = sys.modules["polars"]
    if column.dtype == pl.Object:
        return ["<object>"] * min(PREVIEW_ROWS, int(column.len()))
    return [safe_repr(value, opts.max_text) for value in column.to_list()[:PREVIEW_ROWS]]
