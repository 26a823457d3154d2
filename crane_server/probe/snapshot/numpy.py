"""Summaries of numpy arrays and scalars, with statistics over a bounded strided sample."""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional

from .base import (
    MISSING,
    SummaryOptions,
    distinct_types,
    is_a,
    is_library_class,
    json_number,
    library_class,
    safe_repr,
    scalar_value,
    type_name,
)

SAFE_OBJECT_IDS = frozenset(map(id, (str, int, float, bool, type(None))))


def numpy_kind(obj: Any) -> Optional[str]:
    """ "ndarray" or "numpy_scalar" when obj is a numpy (library) array or scalar."""
    if sys.modules.get("numpy") is None or not is_library_class(type(obj)):
        return None
    if is_a(obj, library_class("numpy", "ndarray")):
        return "ndarray"
    if is_a(obj, library_class("numpy", "generic")):
        return "numpy_scalar"
    return None


def flat_sample(np: Any, array: Any, limit: int) -> Any:
    """At most `limit` elements of `array`, strided over its whole extent, as a 1-d array."""
    size = int(array.size)
    if size <= limit:
        return array.reshape(-1) if array.flags.c_contiguous else array.flatten()
    positions = np.linspace(0, size - 1, limit).astype(np.intp)
    return array.flat[positions]


def value_stats(np: Any, sample: Any, opts: SummaryOptions) -> Dict[str, Any]:
    """NaN count, min/max, distinct count and examples of a 1-d numpy sample.

    Object arrays are ordered or hashed only when every element is an exact
    str/int/float/bool/None (C code); otherwise only their element types are reported."""
    stats: Dict[str, Any] = {}
    kind = sample.dtype.kind
    present = sample
    if kind in "fc":
        nan_mask = np.isnan(sample)
        stats["nan"] = int(nan_mask.sum())
        stats["inf"] = bool(np.isinf(sample).any())
        present = sample[~nan_mask] if stats["nan"] else sample
        if kind == "f" and present.size:
            finite = present[np.isfinite(present)] if stats["inf"] else present
            if finite.size:
                stats["min"] = json_number(float(finite.min()))
                stats["max"] = json_number(float(finite.max()))
    elif kind in "iu":
        stats["nan"] = 0  # integers cannot hold NaN
        if sample.size:
            stats["min"] = int(sample.min())
            stats["max"] = int(sample.max())
    elif kind == "b":
        stats["nan"] = 0
        stats["true"] = int(sample.sum())
    elif kind in "mM":
        nat = np.isnat(sample)
        stats["nan"] = int(nat.sum())
        present = sample[~nat] if stats["nan"] else sample
        if present.size:
            stats["min"] = str(present.min())
            stats["max"] = str(present.max())
    elif kind == "O":
        return _object_stats(sample, stats)
    if kind in "iufbmMUS" and present.size:
        stats["unique"] = distinct_count(np, present)
    head = present[:20]
    _examples([str(value) for value in head] if kind in "mM" else head.tolist(), stats)
    return stats


def distinct_count(np: Any, values: Any) -> int:
    """Number of distinct values of a 1-d array, by sorting (faster than np.unique here)."""
    if values.size < 2:
        return int(values.size)
    ordered = np.sort(values)
    return 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))


def _object_stats(sample: Any, stats: Dict[str, Any]) -> Dict[str, Any]:
    kinds = set(map(id, map(type, sample)))  # ids: never hashes a (user) class
    stats["types"] = sorted(type_name(kind) for kind in distinct_types(sample, min(8, len(kinds))))
    if not kinds <= SAFE_OBJECT_IDS:
        return stats
    if id(float) in kinds or id(type(None)) in kinds:
        pd = sys.modules.get("pandas")
        if pd is not None:  # a C loop; the elements are exact primitives
            present = sample[~pd.isna(sample)].tolist()
        else:
            present = [v for v in sample.tolist() if v is not None and v == v]
    else:
        present = sample.tolist()
    stats["nan"] = int(sample.shape[0]) - len(present)
    stats["unique"] = len(set(present))
    if present and id(str) not in kinds:
        stats["min"] = json_number(min(present))
        stats["max"] = json_number(max(present))
    _examples(present[:20], stats)
    return stats


def _examples(head: List[Any], stats: Dict[str, Any]) -> None:
    """Up to three distinct leading values (head holds library or primitive values)."""
    shown: List[str] = []
    for value in head:
        text = safe_repr(value, 40)
        if text not in shown:
            shown.append(text)
            if len(shown) == 3:
                break
    if shown:
        stats["examples"] = shown


def summarise_numpy(obj: Any, kind: str, out: Dict[str, Any], opts: SummaryOptions) -> None:
    np = sys.modules["numpy"]
    out["kind"] = kind
    if opts.representation:
        out["dtype"] = str(obj.dtype)
    if kind == "numpy_scalar":
        if opts.values:
            value = scalar_value(obj, opts.max_text)
            if value is not MISSING:
                out["stats"] = {"value": value}
        return
    shape: List[Optional[int]] = [int(dim) for dim in obj.shape]
    if opts.structure:
        out["shape"] = shape
        if shape:
            out["length"] = shape[0]
        out.setdefault("details", {})["size"] = int(obj.size)
    if opts.representation:
        flags = obj.flags
        out.setdefault("details", {}).update(
            {"ndim": int(obj.ndim), "c_contiguous": bool(flags.c_contiguous)}
        )
    if opts.values and obj.dtype.kind not in "V":
        with np.errstate(all="ignore"):
            sample = flat_sample(np, obj, opts.max_sample_rows)
            stats = value_stats(np, sample, opts)
        stats["sample_size"] = int(sample.size)
        stats["sampled"] = int(obj.size) > int(sample.size)
        out["stats"] = stats
        if stats["sampled"]:
            out["truncated"] = True
