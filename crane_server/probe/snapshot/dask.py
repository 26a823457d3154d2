"""Summaries of dask DataFrame and Series objects, from their metadata alone.

S: the columns (of `_meta`, the empty pandas object dask keeps), `npartitions` and whether
the divisions are known (with the first and last when they are). R: the dtypes of the meta.
No value is ever reported: the rows, their count and every statistic need a compute, and
reading divisions runs under a scheduler that refuses any graph (a `set_index` frame whose
divisions are not yet known stays without them).
"""

from __future__ import annotations

import sys
from typing import Any, Dict, Optional, Tuple

from .base import SummaryOptions, safe_label, safe_repr

_KINDS = (("DataFrame", "dask_dataframe"), ("Series", "dask_series"))


def dask_kind(obj: Any) -> Optional[str]:
    collection = sys.modules.get("dask.dataframe.dask_expr._collection")
    if collection is None:
        return None
    for attribute, kind in _KINDS:
        if type(obj) is getattr(collection, attribute, None):  # exact types: no user subclass
            return kind
    return None


def _no_compute(dsk: Any, keys: Any, **kwargs: Any) -> Any:
    raise RuntimeError("crane: compute refused")


def _divisions(obj: Any) -> Optional[Tuple[Any, ...]]:
    """The divisions of a collection's expression; None if reading them would compute."""
    dask = sys.modules.get("dask")
    expr = getattr(obj, "expr", None)
    if dask is None or expr is None:
        return None
    try:
        with dask.config.set(scheduler=_no_compute):
            divisions = vars(expr).get("divisions")
            return tuple(divisions if divisions is not None else expr.divisions)
    except Exception:
        return None


def summarise_dask(obj: Any, kind: str, out: Dict[str, Any], opts: SummaryOptions) -> None:
    out["kind"] = kind
    meta = obj._meta
    details = out.setdefault("details", {"library": "dask"})
    details["lazy"] = "metadata only: no partition is ever computed"
    divisions = _divisions(obj)
    if divisions is not None:
        details["npartitions"] = len(divisions) - 1
        known = len(divisions) > 0 and divisions[0] is not None
        details["known_divisions"] = known
        if known:
            details["divisions"] = [
                safe_repr(divisions[0], opts.max_text),
                safe_repr(divisions[-1], opts.max_text),
            ]
    if kind == "dask_series":
        if opts.structure:
            out["shape"] = [None]
            details["series_name"] = safe_label(meta.name, 60)
        if opts.representation:
            out["dtype"] = str(meta.dtype)
        return
    names = list(meta.columns)
    shown = names[: opts.max_column_names]
    if opts.structure:
        out["columns"] = [safe_label(name, 60) for name in shown]
        out["columns_total"] = len(names)
        out["shape"] = [None, len(names)]
    if len(names) > len(shown):
        out["truncated"] = True
    if opts.representation:
        detailed = names[: opts.max_columns]
        out["dtypes"] = {safe_label(name, 60): str(meta[name].dtype) for name in detailed}
