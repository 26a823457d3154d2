"""Summaries of pandas DataFrame, Series, Index, Categorical and GroupBy objects.

Statistics are computed on a bounded row sample (head, strided middle and tail; at most
`max_sample_rows` rows) and on at most `max_columns` columns (plus the columns a cell asked
for by name), so the cost is flat in the number of rows. Column statistics keys:
`nan` (count in the sample), `min`, `max`, `unique` (distinct values in the sample),
`examples`, `types` (element types of object columns), `categories`/`n_categories`.
Object columns holding anything but str/int/float/bool/None are never compared or hashed.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional

from ..values import holds_user_extension
from .base import (
    MISSING,
    SummaryOptions,
    distinct_types,
    instance_dict,
    is_a,
    is_library_class,
    json_number,
    library_class,
    one_of,
    safe_label,
    safe_repr,
    scalar_value,
    short_type_names,
    type_name,
)
from .numpy import SAFE_OBJECT_IDS, distinct_count, value_stats

_KINDS = (
    ("DataFrame", "dataframe"),
    ("Series", "series"),
    ("Index", "index"),
    ("Categorical", "categorical"),
)


def pandas_kind(obj: Any) -> Optional[str]:
    pd = sys.modules.get("pandas")
    if pd is None or not is_library_class(type(obj)):
        return None
    for attribute, kind in _KINDS:
        if is_a(obj, library_class("pandas", attribute)):
            return kind
    if is_a(obj, library_class("pandas.core.groupby.groupby", "GroupBy")):
        return "groupby"
    return None


def hashable_labels(index: Any, limit: int = 100_000) -> bool:
    """True when hashing/comparing the labels runs no user code: non-object dtypes, or
    object labels that are all exact str/int/float/bool/None (checked by type identity)."""
    if type(index).__name__ == "MultiIndex" or index.dtype.kind != "O":
        return True
    if len(index) > limit:
        return False
    return set(map(id, map(type, index.to_numpy()))) <= SAFE_OBJECT_IDS


def sample_positions(np: Any, length: int, limit: int, chunk: int = 250) -> Any:
    """Row positions to sample, or None for all rows: evenly spaced runs of `chunk`
    consecutive rows, the first at the head and the last at the tail (cache-friendly)."""
    if length <= limit:
        return None
    runs = max(2, limit // chunk)
    chunk = limit // runs
    starts = np.linspace(0, length - chunk, runs).astype(np.intp)
    return (starts[:, None] + np.arange(chunk, dtype=np.intp)).reshape(-1)


def without_attrs(obj: Any) -> Any:
    """The same frame or series without `attrs`: pandas deep-copies attrs (user objects, their
    __deepcopy__) into every result; a view on the same block manager reads the same data."""
    pd = sys.modules.get("pandas")
    if pd is None or type(obj) not in (pd.DataFrame, pd.Series):
        return obj
    try:
        if not object.__getattribute__(obj, "_attrs"):
            return obj
    except Exception:
        pass
    try:
        manager = object.__getattribute__(obj, "_mgr")
        view = type(obj)._from_mgr(manager, axes=manager.axes)
        if type(obj) is pd.Series:
            view.name = obj.name
        return view
    except Exception:
        return None


def summarise_pandas(obj: Any, kind: str, out: Dict[str, Any], opts: SummaryOptions) -> None:
    out["kind"] = kind
    if holds_user_extension(obj):
        # every read (length, dtype, a value) would call the user's array methods
        out["details"] = {"user_extension_array": True}
        return
    obj = without_attrs(obj)
    if obj is None:
        return  # attrs that cannot be left out: nothing more is read
    if kind == "dataframe":
        _frame(obj, out, opts)
    elif kind == "series":
        _series(obj, out, opts)
    elif kind == "index":
        _index_object(obj, out, opts)
    elif kind == "categorical":
        _categorical(obj, out, opts)
    else:
        _groupby(obj, out, opts)


def _detail_positions(frame: Any, requested: List[str], opts: SummaryOptions) -> List[int]:
    total = frame.shape[1]
    positions = list(range(min(total, opts.max_columns)))
    if requested and total > opts.max_columns and hashable_labels(frame.columns):
        try:
            found = frame.columns.get_indexer_for(list(requested))
        except Exception:
            found = []
        for position in found:
            position = int(position)
            if position >= 0 and position not in positions:
                positions.append(position)
    return positions


def _frame(frame: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    np = sys.modules["numpy"]
    rows, total = (int(dim) for dim in frame.shape)
    columns = frame.columns
    if opts.structure:
        out["shape"] = [rows, total]
        out["length"] = rows
        out["columns"] = [safe_label(label, 60) for label in columns[: opts.max_column_names]]
        out["columns_total"] = total
        out["index"] = index_summary(frame.index, opts)
        details = out.setdefault("details", {})
        if hashable_labels(columns):
            details["columns_unique"] = bool(columns.is_unique)
        labels = columns[: opts.max_column_names].tolist()
        details["column_label_types"] = short_type_names(labels, 4)  # 0 vs "0"
        if type(columns).__name__ == "MultiIndex":
            details["column_levels"] = int(columns.nlevels)
    if total > opts.max_column_names:
        out["truncated"] = True
    positions = _detail_positions(frame, opts.detail_columns.get(out["name"], []), opts)
    if opts.representation:
        dtypes = frame.dtypes
        out["dtypes"] = {safe_label(columns[p], 60): str(dtypes.iloc[p]) for p in positions}
    if not opts.values or not positions:
        return
    rows_at = sample_positions(np, rows, opts.max_sample_rows)
    # Narrow frames: one row take of the whole frame; wide ones: one take per detail column.
    sample = frame if rows_at is None or total > 2 * opts.max_columns else frame.take(rows_at)
    stats: Dict[str, Dict[str, Any]] = {}
    for position in positions:
        if opts.out_of_time():
            out["truncated"] = True
            break
        column = sample.iloc[:, position]
        if rows_at is not None and sample is frame:
            column = column.take(rows_at)
        stats[safe_label(columns[position], 60)] = column_stats(np, column, opts)
    out["column_stats"] = stats
    sample_rows = rows if rows_at is None else int(rows_at.shape[0])
    out["stats"] = {"sample_rows": sample_rows, "sampled": rows_at is not None}


def column_stats(np: Any, column: Any, opts: SummaryOptions) -> Dict[str, Any]:
    """Statistics of one sampled column (a Series)."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype):  # numpy-backed: numpy on the sampled values
        return value_stats(np, column.to_numpy(), opts)
    if type(dtype).__name__ == "CategoricalDtype":
        return _categorical_stats(np, column.array.codes, dtype)
    return _extension_stats(column, dtype)


def _categorical_stats(np: Any, codes: Any, dtype: Any) -> Dict[str, Any]:
    categories = dtype.categories
    valid = codes[codes >= 0]
    stats: Dict[str, Any] = {
        "nan": int(codes.size - valid.size),
        "n_categories": len(categories),
        "categories": [safe_repr(value, 40) for value in categories[:10].tolist()],
        "ordered": bool(dtype.ordered),
        "unique": distinct_count(np, valid),
    }
    if valid.size:
        first = []
        for code in valid[:20].tolist():
            if code not in first:
                first.append(code)
        stats["examples"] = [safe_repr(categories[code], 40) for code in first[:3]]
    return stats


def _extension_stats(column: Any, dtype: Any) -> Dict[str, Any]:
    """Nullable, string, arrow, tz-aware, period, interval, sparse columns: pandas' own ops."""
    kind = getattr(dtype, "kind", "O")
    stats: Dict[str, Any] = {}
    isna = column.isna()
    stats["nan"] = int(isna.sum())
    present = column[~isna] if stats["nan"] else column
    name = type(dtype).__name__
    if kind == "O":
        values = present.to_numpy()
        kinds = set(map(id, map(type, values)))
        stats["types"] = sorted(type_name(k) for k in distinct_types(values, min(8, len(kinds))))
        hashable = kinds <= SAFE_OBJECT_IDS
        comparable = hashable and not (id(str) in kinds and len(kinds) > 1)
        if hashable and not comparable:  # mixed str and numbers: count, never order
            stats["unique"] = int(present.nunique())
    else:
        comparable = True
    if comparable and present.size:
        if kind in "iufmMOSU" or name in ("StringDtype", "ArrowDtype"):
            try:
                stats["min"] = _value(present.min())
                stats["max"] = _value(present.max())
            except Exception:
                pass
        stats["unique"] = int(present.nunique())
    if present.size and comparable:
        head = present.iloc[:20].drop_duplicates().iloc[:3]
        stats["examples"] = [safe_repr(value, 40) for value in head.tolist()]
    return stats


def _value(value: Any) -> Any:
    """JSON value of a min/max from pandas (a library scalar or an exact primitive)."""
    if one_of(value, bool, int, float):
        return json_number(value)
    if type(value) is str:
        return value[:40]
    scalar = scalar_value(value, 40)
    return scalar if scalar is not MISSING else safe_repr(value, 40)


def index_summary(index: Any, opts: SummaryOptions) -> Dict[str, Any]:
    """Type, length, dtype and range of an index; uniqueness only where it is cheap."""
    length = len(index)
    summary: Dict[str, Any] = {"type": type(index).__name__, "length": length}
    summary["dtype"] = str(index.dtype)
    if type(index).__name__ == "RangeIndex":
        summary.update(start=int(index.start), stop=int(index.stop), step=int(index.step))
        summary["is_unique"] = True
        summary["is_monotonic_increasing"] = int(index.step) > 0 or length <= 1
        return summary
    names = [safe_label(name, 40) for name in list(index.names)[:5] if name is not None]
    if names:
        summary["names"] = names
    if length:
        summary["first"] = safe_label(index[0], 40)
        summary["last"] = safe_label(index[length - 1], 40)
    cache = getattr(index, "_cache", None)
    computable = length <= opts.max_sample_rows and hashable_labels(index)
    for flag in ("is_unique", "is_monotonic_increasing"):
        if computable:
            summary[flag] = bool(getattr(index, flag))
        elif isinstance(cache, dict) and flag in cache:  # computed earlier by pandas itself
            summary[flag] = bool(cache[flag])
    return summary


def _series(series: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    np = sys.modules["numpy"]
    length = len(series)
    if opts.structure:
        out["shape"] = [length]
        out["length"] = length
        out["index"] = index_summary(series.index, opts)
        if series.name is not None:
            out.setdefault("details", {})["series_name"] = safe_label(series.name, 60)
    if opts.representation:
        out["dtype"] = str(series.dtype)
    if opts.values:
        rows_at = sample_positions(np, length, opts.max_sample_rows)
        sample = series if rows_at is None else series.iloc[rows_at]
        stats = column_stats(np, sample, opts)
        stats["sample_rows"] = len(sample)
        stats["sampled"] = rows_at is not None
        out["stats"] = stats


def _index_object(index: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    np = sys.modules["numpy"]
    summary = index_summary(index, opts)
    if opts.structure:
        out["shape"] = [summary["length"]]
        out["length"] = summary["length"]
        out["index"] = summary
    if opts.representation:
        out["dtype"] = summary["dtype"]
    if opts.values:
        rows_at = sample_positions(np, summary["length"], opts.max_sample_rows)
        sample = index if rows_at is None else index.take(rows_at)
        series = sys.modules["pandas"].Series(sample, copy=False)
        out["stats"] = column_stats(np, series, opts)


def _categorical(cat: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    np = sys.modules["numpy"]
    length = len(cat)
    categories = cat.categories
    if opts.structure:
        out["shape"] = [length]
        out["length"] = length
    if opts.representation:
        out["dtype"] = "category"
        out.setdefault("details", {}).update(
            ordered=bool(cat.ordered), categories_dtype=str(categories.dtype)
        )
    if opts.values:
        codes = cat.codes
        rows_at = sample_positions(np, length, opts.max_sample_rows)
        sample_codes = codes if rows_at is None else codes[rows_at]
        out["stats"] = {
            "nan": int((sample_codes == -1).sum()),
            "n_categories": len(categories),
            "categories": [safe_repr(value, 40) for value in categories[:10].tolist()],
            "sampled": rows_at is not None,
        }


def _groupby(groupby: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    """Keys, selection and the grouped object's shape; the groups are never computed."""
    namespace = instance_dict(groupby) or {}
    source = namespace.get("obj")
    keys: Any = namespace.get("keys")
    details: Dict[str, Any] = {}
    if opts.structure:
        if one_of(keys, list, tuple):
            details["keys"] = [safe_label(key, 60) for key in list(keys)[:10]]
        elif keys is not None:
            details["keys"] = [safe_label(keys, 60)]
        if namespace.get("level") is not None:
            details["level"] = safe_label(namespace.get("level"), 40)
        selection: Any = namespace.get("_selection")
        if selection is not None:
            if one_of(selection, list, tuple):
                details["selection"] = [safe_label(item, 60) for item in list(selection)[:20]]
            else:
                details["selection"] = [safe_label(selection, 60)]
        if source is not None:
            details["grouped_type"] = type(source).__name__
            shape = [int(dim) for dim in source.shape]
            out["shape"] = shape
            if len(shape) == 2:
                out["columns"] = [
                    safe_label(label, 60) for label in source.columns[: opts.max_column_names]
                ]
                out["columns_total"] = shape[1]
    if opts.representation:
        for flag in ("as_index", "sort", "dropna", "observed"):
            value = namespace.get(flag)
            if type(value) is bool:
                details[flag] = value
    if details:
        out["details"] = details
