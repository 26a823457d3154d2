"""pandas rules: missing columns and labels, removed APIs, inplace effects, failing casts."""

from __future__ import annotations

import ast
from typing import Any, List, Optional

from ..files import missing_folder
from ..gate import rule_inputs_allowed
from ..outcomes import CallSite, Raise, Result
from ..purity import PANDAS_IMPURE_METHODS
from ..quiet import quiet
from ..values import (
    LIBRARY_ROOTS,
    UNKNOWN,
    BoundMethod,
    UserFunction,
    Val,
    closest_name,
    is_dataframe,
    is_library_object,
    is_ndarray,
    is_plain_data,
    is_series,
    loaded,
    preview,
    type_root,
)
from .python import REMOVED_API_FIXES, exception_code, missing_file, raised, signature_rule

# Methods whose result has the same rows as the receiver (so a sample's true row count carries).
ROW_PRESERVING = frozenset(
    """drop rename astype fillna copy replace round abs isna isnull notna notnull add sub mul div
    truediv floordiv mod pow clip get_dummies to_numeric to_datetime reset_index set_index
    reindex_like assign select_dtypes __getitem__ where mask shift diff cumsum cumprod rank map
    str lower upper strip apply""".split()
)
# Methods that take column labels; a KeyError they raise does not depend on the rows sampled.
COLUMN_METHODS = frozenset(
    """drop groupby sort_values set_index pivot pivot_table dropna drop_duplicates melt
    nlargest nsmallest value_counts duplicated explode rename_axis""".split()
)
# Element-wise conversions: if they fail on a subset of the values they fail on all of them.
CONVERSIONS = frozenset({"astype", "to_numeric", "to_datetime", "to_timedelta"})


def _is_frame_like(obj: Any) -> bool:
    return is_dataframe(obj) or is_series(obj)


def missing_column_raise(
    frame: Any, key: Any, exc: BaseException, node: ast.AST, key_node: Optional[ast.AST]
) -> Raise:
    columns = list(frame.columns)
    missing = (
        key
        if not isinstance(key, (list, tuple))
        else [k for k in key if not _hashable(k) or k not in frame.columns]
    )
    probe_key = (
        missing if not isinstance(missing, list) else (missing[0] if len(missing) == 1 else None)
    )
    if not _hashable(probe_key):
        probe_key = None  # a list inside the list of labels: no one name to suggest
    closest = closest_name(probe_key, columns) if probe_key is not None else None
    replace_node = None
    if closest is not None and key_node is not None:
        replace_node = _literal_node(key_node, probe_key)
    message = str(exc) if not isinstance(exc, KeyError) else _key_error_text(exc)
    facts = ["available columns (%d): %s" % (len(columns), preview(columns))]
    if closest is not None:
        facts.append("closest existing column: %r" % closest)
    return Raise(
        "pandas-missing-column",
        "KeyError",
        message,
        facts=facts,
        fix=("use %r" % closest)
        if closest is not None
        else "check the column name; it may have been dropped or renamed by a cell that already ran",
        closest=closest,
        node=node,
        replace_node=replace_node,
        replace_text=repr(closest) if replace_node is not None else None,
    )


def _key_error_text(exc: BaseException) -> str:
    if (
        exc.args
        and isinstance(exc.args[0], str)
        and not exc.args[0].startswith(("'", '"', "[", "None"))
    ):
        return repr(exc.args[0])
    return str(exc)


def _literal_node(node: ast.AST, value: Any) -> Optional[ast.AST]:
    """The string literal `value` inside node (the key as written), for a quick fix."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and sub.value == value:
            return sub
    return None


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    obj = base.obj
    if not _is_frame_like(obj):
        return None
    name = node.attr
    if is_dataframe(obj) and name in obj.columns and not hasattr(type(obj), name):
        column = obj[name]
        return Result(Val(column, sampled=base.sampled, rows=base.rows, fake=base.fake))
    if hasattr(type(obj), name):
        return None  # generic attribute rule evaluates it
    if is_dataframe(obj):
        kind = type(obj).__name__
        fix = REMOVED_API_FIXES.get((kind, name))
        closest = closest_name(name, list(obj.columns)) if fix is None else None
        facts = []
        if fix is None:
            facts.append(
                "'%s' is neither a DataFrame attribute nor a column; columns: %s"
                % (name, preview(list(obj.columns)))
            )
        return Raise(
            "pandas-missing-attribute" if fix is None else "pandas-removed-api",
            "AttributeError",
            "'%s' object has no attribute '%s'" % (kind, name),
            facts=facts,
            fix=fix or (("use df[%r]" % closest) if closest else None),
            closest=closest,
            node=node,
        )
    return None


INDEXERS = frozenset({"_LocIndexer", "_iLocIndexer", "_AtIndexer", "_iAtIndexer"})


def _indexer(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    """`frame.loc[...]` and friends: evaluated on exact frames; columns checked on samples."""
    if not isinstance(key, Val) or not (is_plain_data(key.obj) or is_library_object(key.obj)):
        return Result(UNKNOWN)
    indexer = base.obj
    frame = getattr(indexer, "obj", None)
    name = type(indexer).__name__
    if base.sampled or key.sampled or base.fake:
        if (
            name == "_LocIndexer"
            and is_dataframe(frame)
            and type(key.obj) is tuple
            and len(key.obj) == 2
        ):
            columns = key.obj[1]
            labels = columns if type(columns) is list else [columns]
            if (
                frame is not None
                and all(_hashable(c) for c in labels)
                and not isinstance(columns, slice)
            ):
                missing = [c for c in labels if c not in frame.columns]
                if missing and type(columns) is not list:
                    return missing_column_raise(frame, columns, KeyError(columns), node, node.slice)
        return Result(UNKNOWN)
    try:
        with quiet():
            result = indexer[key.obj]
    except KeyError as exc:
        if (
            is_dataframe(frame)
            and name == "_LocIndexer"
            and type(key.obj) is tuple
            and len(key.obj) == 2
        ):
            return missing_column_raise(frame, key.obj[1], exc, node, node.slice)
        return Raise(
            "pandas-missing-label",
            "KeyError",
            _key_error_text(exc),
            facts=["index: %s" % _index_text(frame)],
            node=node,
        )
    except IndexError as exc:
        return Raise(
            "pandas-index-out-of-bounds",
            "IndexError",
            str(exc).split("\n")[0],
            facts=["shape: %s" % (getattr(frame, "shape", "?"),)],
            node=node,
        )
    except Exception:
        return Result(UNKNOWN)
    return Result(Val(result))


def _index_text(frame: Any) -> str:
    try:
        index = frame.index
        return "%s of %d labels, first %s" % (type(index).__name__, len(index), list(index[:5]))
    except Exception:
        return "?"


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    obj = base.obj
    if type(obj).__name__ in INDEXERS and type(obj).__module__.startswith("pandas"):
        return _indexer(chk, node, base, key)
    if not is_dataframe(obj) or not isinstance(key, Val):
        return None
    label = key.obj
    if isinstance(label, (str, int, float, tuple)) or (
        type(label) is list and is_plain_data(label)
    ):
        labels = label if type(label) is list else [label]
        if all(_hashable(item) and item not in obj.columns for item in labels) or (
            type(label) is list and any(item not in obj.columns for item in labels)
        ):
            missing = _selection_error(obj, label, label, node)
            if missing is not None:
                return missing
        try:
            with quiet():
                result = obj[label]
        except Exception:
            return Result(UNKNOWN)
        return Result(Val(result, sampled=base.sampled, rows=base.rows, fake=base.fake))
    pd = loaded("pandas")
    if _column_labels_array(label, pd):
        # an array or Index of names selects columns (all of them are known, sample or not)
        names = label.tolist()
        if all(_hashable(item) for item in names) and any(
            item not in obj.columns for item in names
        ):
            missing = _selection_error(obj, label, names, node)
            if missing is not None:
                return missing
    if (pd is not None and is_series(label)) or (
        loaded("numpy") is not None and type(label).__name__ == "ndarray"
    ):
        if base.sampled or key.sampled:
            return Result(UNKNOWN)
        try:
            result = obj[label]
        except Exception:
            return Result(UNKNOWN)
        return Result(Val(result, fake=base.fake or key.fake))
    return None


def _selection_error(frame: Any, label: Any, names: Any, node: ast.Subscript) -> Any:
    """`frame[label]` with a name that is not a column: the KeyError it raises, else None."""
    try:
        frame[label]
    except KeyError as exc:
        return missing_column_raise(frame, names, exc, node, node.slice)
    except Exception:
        return Result(UNKNOWN)
    return None


def _column_labels_array(label: Any, pd: Any) -> bool:
    """A 1-D NumPy array or pandas Index of names (not booleans: those select rows)."""

    if not (is_ndarray(label) or (pd is not None and type(label) is pd.Index)):
        return False
    return label.ndim == 1 and label.dtype.kind in ("O", "U", "S", "T", "i", "u")


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    return None


def _drop_columns(site: CallSite) -> Optional[Any]:
    """The column labels a DataFrame.drop call removes, if it removes columns."""
    columns = site.kwargs.get("columns")
    if columns is not None:
        return columns
    axis = site.kwargs.get("axis")
    if axis is None and len(site.args) >= 2:
        axis = site.args[1]
    labels = site.kwargs.get("labels", site.args[0] if site.args else None)
    if isinstance(axis, Val) and axis.obj in (1, "columns"):
        return labels
    return None


def on_call(chk: Any, site: CallSite) -> Any:
    func = site.func
    written = write_into_missing_folder(chk, site)
    if written is not None:
        return written
    if isinstance(func, BoundMethod) and _is_frame_like(func.receiver.obj):
        return _frame_method(chk, site, func)
    if isinstance(func, Val):
        pd = loaded("pandas")
        target = func.obj
        if pd is not None and (getattr(target, "__module__", None) or "").startswith("pandas"):
            name = getattr(target, "__name__", "")
            if name.startswith("read_") and getattr(pd, name, None) is target:
                return _read_rule(site, files_known=not chk.files_unreliable)
            if name in CONVERSIONS and getattr(pd, name, None) is target:
                return _conversion(chk, site, target, [])
    return None


# A local file this small is read for real by `read_csv`/`read_table`/`read_json` in the walk
# (a read changes nothing), so what the cell does with the frame can be judged.
SMALL_FILE_BYTES = 2_000_000
_SMALL_READERS = ("read_csv", "read_table", "read_json")
_STREAMING = ("chunksize", "iterator", "storage_options")


def _read_rule(site: CallSite, files_known: bool = True) -> Any:
    import os

    bad_call = signature_rule(site)
    if bad_call is not None:
        return bad_call
    path = site.arg(0, "filepath_or_buffer")
    if not files_known or not isinstance(path, Val):
        return Result(UNKNOWN)
    name = _local_path(path.obj)
    if name is None:
        return Result(UNKNOWN)
    if not os.path.exists(name) and not any(ch in name for ch in "*?"):
        return missing_file(name, site)
    return _read_small_file(site, name)


def _local_path(obj: Any) -> Optional[str]:
    """The path a reader is given, when it is a local path (a str or a pathlib path)."""
    import pathlib

    if type(obj) is str:
        return obj if "://" not in obj else None
    if type(obj) in (pathlib.PosixPath, pathlib.WindowsPath):
        return str(obj)
    return None


def _reader_argument(obj: Any) -> bool:
    """Plain data, or a dtype given as a builtin, numpy or pandas type (no callables)."""
    if isinstance(obj, type):
        return obj in (str, int, float, bool, object) or type_root(obj) in ("numpy", "pandas")
    if type(obj) is dict:
        return all(is_plain_data(k) and _reader_argument(v) for k, v in obj.items())
    return is_plain_data(obj)


def _read_small_file(site: CallSite, name: str) -> Any:
    """Read a small regular file for real: the frame the cell will get, as a walk value."""
    import os
    import stat

    reader: Any = getattr(site.func, "obj", None)
    if getattr(reader, "__name__", "") not in _SMALL_READERS or site.has_star:
        return Result(UNKNOWN)
    values = list(site.args[1:]) + list(site.kwargs.values())
    if any(key in site.kwargs for key in _STREAMING) or not all(
        isinstance(v, Val) and not v.fake and _reader_argument(v.obj) for v in values
    ):
        return Result(UNKNOWN)
    try:
        info = os.stat(name)
    except OSError:
        return Result(UNKNOWN)
    if not stat.S_ISREG(info.st_mode) or info.st_size > SMALL_FILE_BYTES:
        return Result(UNKNOWN)
    args = [name] + [v.obj for v in site.args[1:]]
    kwargs = {k: v.obj for k, v in site.kwargs.items() if k != "filepath_or_buffer"}
    try:
        with quiet():
            frame = reader(*args, **kwargs)
    except Exception:
        # a parse error would be a real crash, but the file may still change before the run
        return Result(UNKNOWN)
    return Result(Val(frame, origin="read from %s" % name))


# `iterrows()` builds a Series per row: followed for frames up to this many rows.
ITERROWS_MAX_ROWS = 200


def _frame_method(chk: Any, site: CallSite, func: BoundMethod) -> Any:
    receiver = func.receiver
    obj = receiver.obj
    name = func.name
    if name in ("items", "iterrows") and not (site.args or site.kwargs or site.has_star):
        return _frame_pairs(receiver, name)
    if site.has_star or not all(
        isinstance(v, Val) for v in list(site.args) + list(site.kwargs.values())
    ):
        if name in (
            "drop",
            "pop",
            "insert",
            "update",
            "fillna",
            "dropna",
            "rename",
            "reset_index",
            "set_index",
            "sort_values",
            "replace",
            "drop_duplicates",
        ):
            _forget_receiver(chk, site)
        return None
    inplace = isinstance(site.kwargs.get("inplace"), Val) and site.kwargs["inplace"].obj is True
    if name in CONVERSIONS and not inplace:
        return _conversion(chk, site, func.func, [receiver])
    if name == "pop" and is_dataframe(obj) and site.args:
        label = site.args[0].obj
        if _hashable(label) and label not in obj.columns:
            try:
                obj.copy(deep=False).pop(label)
            except KeyError as exc:
                return missing_column_raise(obj, label, exc, site.node, site.arg_node(0, "item"))
        _forget_receiver(chk, site)
        return Result(UNKNOWN)
    if name in ("insert", "update"):
        _forget_receiver(chk, site)
        return Result(UNKNOWN)
    if not inplace and name not in COLUMN_METHODS:
        return None
    if name in PANDAS_IMPURE_METHODS:
        # eval/query look names up in the caller's frame (`@t`), which is not the cell's
        _forget_receiver(chk, site)
        return Result(UNKNOWN)
    kwargs = {k: v.obj for k, v in site.kwargs.items() if k != "inplace"}
    args = [v.obj for v in site.args]
    if any(not (is_plain_data(v) or is_library_object(v)) for v in args + list(kwargs.values())):
        if inplace:
            _forget_receiver(chk, site)
        return Result(UNKNOWN)
    try:
        with quiet():
            result = getattr(obj, name)(*args, **kwargs)
    except KeyError as exc:
        if receiver.fake and not is_dataframe(obj):
            return Result(UNKNOWN)
        trusted = not receiver.sampled or (name in COLUMN_METHODS and _drop_columns_ok(name, site))
        if not trusted:
            return Result(UNKNOWN)
        key_node = _label_node(site)
        if is_dataframe(obj):
            labels = _labels_from(site, name)
            return (
                missing_column_raise(obj, labels, exc, site.node, key_node)
                if labels is not None
                else Raise("pandas-missing-label", "KeyError", _key_error_text(exc), node=site.node)
            )
        return Raise("pandas-missing-label", "KeyError", _key_error_text(exc), node=site.node)
    except Exception as exc:
        if receiver.sampled or receiver.fake:
            return Result(UNKNOWN)

        return raised(exc, site)
    new_value = Val(
        result,
        sampled=receiver.sampled,
        rows=receiver.rows if name in ROW_PRESERVING else None,
        fake=receiver.fake,
    )
    if inplace:
        target = site.node.func.value if isinstance(site.node.func, ast.Attribute) else None
        if isinstance(target, ast.Name):
            chk.bind(target.id, new_value)
        else:
            _forget_receiver(chk, site)
        return Result(Val(None))
    return Result(new_value)


def _frame_pairs(receiver: Val, name: str) -> Any:
    """`df.items()` (name, column) and `df.iterrows()` (label, row) pairs of a whole frame, as
    a list the loop can walk; a sample's pairs are not all of them."""
    obj = receiver.obj
    if receiver.sampled or receiver.fake or not is_dataframe(obj):
        return Result(UNKNOWN)
    if name == "iterrows" and len(obj) > ITERROWS_MAX_ROWS:
        return Result(UNKNOWN)
    try:
        with quiet():
            pairs = list(obj.items()) if name == "items" else list(obj.iterrows())
    except Exception:
        return Result(UNKNOWN)
    return Result(Val(pairs))


def _drop_columns_ok(name: str, site: CallSite) -> bool:
    if name != "drop":
        return True
    return _drop_columns(site) is not None


def _labels_from(site: CallSite, name: str) -> Any:
    if name == "drop":
        value = _drop_columns(site)
    else:
        value = site.arg(
            0,
            {
                "groupby": "by",
                "sort_values": "by",
                "set_index": "keys",
                "dropna": "subset",
                "drop_duplicates": "subset",
            }.get(name, "columns"),
        )
        if name == "dropna":
            value = site.kwargs.get("subset")
    return value.obj if isinstance(value, Val) else None


def _label_node(site: CallSite) -> Optional[ast.AST]:
    for keyword in site.node.keywords:
        if keyword.arg in ("columns", "labels", "by", "subset", "keys"):
            return keyword.value
    return site.node.args[0] if site.node.args else None


def _forget_receiver(chk: Any, site: CallSite) -> None:
    target = site.node.func.value if isinstance(site.node.func, ast.Attribute) else None
    if isinstance(target, ast.Name):
        chk.bind(target.id, UNKNOWN)
    if isinstance(site.func, BoundMethod):
        chk.havoc_value(site.func.receiver)


def _conversion(chk: Any, site: CallSite, func: Any, inputs: List[Val]) -> Any:
    """astype / to_numeric / to_datetime: a failure on a sample is a failure on all rows."""
    values = inputs + list(site.args) + list(site.kwargs.values())
    if site.has_star or not all(isinstance(v, Val) for v in values):
        return None
    if any(v.fake for v in values):
        return Result(UNKNOWN)
    errors = site.kwargs.get("errors")
    if isinstance(errors, Val) and errors.obj in ("coerce", "ignore"):
        return None
    args = [v.obj for v in site.args]
    kwargs = {k: v.obj for k, v in site.kwargs.items()}
    if any(
        not (is_plain_data(v) or is_library_object(v) or isinstance(v, type))
        for v in args + list(kwargs.values())
    ):
        return None
    try:
        with quiet():
            result = func(*args, **kwargs)
    except (ValueError, TypeError, OverflowError) as exc:
        sample = inputs[0].obj if inputs else (site.args[0].obj if site.args else None)
        facts = _conversion_facts(sample)
        return Raise(
            "pandas-invalid-cast",
            type(exc).__name__,
            str(exc).split("\n")[0],
            facts=facts,
            fix="clean the values first (e.g. .str.replace('[$,]', '', regex=True)), or pass errors='coerce'"
            if "to_" in getattr(func, "__name__", "")
            else "clean or fill the values that cannot be converted first (e.g. fillna, str.replace)",
            node=site.node,
        )
    except Exception:
        return Result(UNKNOWN)
    sampled = any(v.sampled for v in values)
    rows = next((v.rows for v in values if v.sampled), None)
    return Result(Val(result, sampled=sampled, rows=rows))


def _conversion_facts(sample: Any) -> List[str]:
    if not is_series(sample):
        return []
    try:
        examples = [repr(v) for v in sample.dropna().unique()[:5]]
    except Exception:
        return []
    return [
        "dtype %s; example values: %s" % (sample.dtype, ", ".join(examples)),
        "NaN values in sample: %d" % int(sample.isna().sum()),
    ]


# Methods that call a function on each element (Series) or each column or row (DataFrame).
ELEMENT_CALLERS = frozenset({"apply", "map"})


# Writers that refuse a path whose folder is missing (pandas' own OSError).
FRAME_WRITERS = frozenset({"to_csv", "to_json", "to_pickle"})


def write_into_missing_folder(chk: Any, site: CallSite) -> Any:
    func = site.func
    if not isinstance(func, BoundMethod) or func.name not in FRAME_WRITERS:
        return None
    if chk.files_unreliable or not (
        is_dataframe(func.receiver.obj) or is_series(func.receiver.obj)
    ):
        return None

    argument = "path_or_buf" if func.name != "to_pickle" else "path"
    return missing_folder(site.arg(0, argument), site, "OSError")


def apply_user_function(chk: Any, site: CallSite) -> Any:
    """`series.apply(f)`, `series.map(f)`, `frame.apply(f[, axis=1])` with a user function or
    lambda: pandas calls it first on the first element (the first column, the first row), so
    its body is walked on that value; a crash there is the crash of the call. The call's result
    is not computed. None for anything else (the usual path judges it)."""
    func = site.func
    if not isinstance(func, BoundMethod) or func.name not in ELEMENT_CALLERS or site.has_star:
        return None
    receiver = func.receiver
    obj = receiver.obj
    if receiver.live or receiver.fake or not (is_series(obj) or is_dataframe(obj)):
        return None
    given = site.arg(0, "func" if func.name == "apply" else "arg")
    if not isinstance(given, Val) or not _user_callable_value(given):
        return None
    allowed = {"axis"} if is_dataframe(obj) else set()
    if set(site.kwargs) - allowed - {"func", "arg"} or len(site.args) > 1:
        return Result(UNKNOWN)  # args=, raw=, na_action=, result_type=: not modelled
    first = _first_argument(receiver, site.kwargs.get("axis"))
    if first is None:
        return Result(UNKNOWN)
    chk.walk_user_callable(given, [first], site.node)
    return Result(UNKNOWN)


def _user_callable_value(value: Val) -> bool:
    import types

    target = value.obj
    if isinstance(target, UserFunction):
        return True
    module = getattr(target, "__module__", None) if type(target) is types.FunctionType else None
    return type(target) is types.FunctionType and (module or "__main__").split(".", 1)[0] not in (
        LIBRARY_ROOTS
    )


def _first_argument(receiver: Val, axis: Any) -> Optional[Val]:
    """What pandas hands the function first: element 0, column 0, or row 0 (axis=1). A column
    of a sampled frame is itself a sample of the column (its true length travels along)."""
    obj = receiver.obj
    if len(obj) == 0:
        return None
    if is_series(obj):
        # pandas hands the function boxed Python values (a float, an int, a Timestamp)
        item = obj.iloc[:1].astype(object).iloc[0]
        return Val(item) if is_plain_data(item) or is_library_object(item) else None
    direction = axis.obj if isinstance(axis, Val) else 0
    by_row = (type(direction) is int and direction == 1) or (
        type(direction) is str and direction == "columns"
    )
    by_column = (type(direction) is int and direction == 0) or (
        type(direction) is str and direction == "index"
    )
    if by_row:
        return Val(obj.iloc[0].copy())
    if by_column and obj.shape[1]:
        column = obj.iloc[:, 0].copy()
        return Val(column, sampled=receiver.sampled, rows=receiver.rows)
    return None


def set_item(chk: Any, target: ast.Subscript, base: Any, key: Any, value: Any) -> Any:
    """`frame[col] = value`: the frame with that column, computed on a copy."""
    if isinstance(base, Val) and type(base.obj).__name__ in INDEXERS:
        return _set_through_indexer(chk, target, base, key, value)
    if not isinstance(base, Val) or not is_dataframe(base.obj) or not isinstance(key, Val):
        return None
    label = key.obj
    if type(label) is list:
        return _set_columns(base, label, value, target)
    if not _hashable(label) or isinstance(label, tuple):
        return None
    mismatch = _length_mismatch(base, value, label, target)
    if mismatch is not None:
        return mismatch
    frame = base.obj.copy(deep=True)
    fake = base.fake
    if (
        isinstance(value, Val)
        and (is_plain_data(value.obj) or is_library_object(value.obj))
        and not (value.sampled != base.sampled and not _is_scalar(value.obj))
    ):
        try:
            with quiet():
                frame[label] = value.obj
        except Exception:
            frame[label] = None
            fake = True
        fake = fake or value.fake
    else:
        frame[label] = None
        fake = True
    return Result(Val(frame, sampled=base.sampled, rows=base.rows, fake=fake))


INDEXER_NAMES = {
    "_LocIndexer": "loc",
    "_iLocIndexer": "iloc",
    "_AtIndexer": "at",
    "_iAtIndexer": "iat",
}


def _set_through_indexer(chk: Any, target: ast.Subscript, base: Val, key: Any, value: Any) -> Any:
    """`frame.loc[k] = v` (and `.iloc`, `.at`, `.iat`) on a whole frame: done on a copy, where
    an error is the run's own (pandas 3 refuses a value its column's dtype cannot hold).
    The frame is not followed afterwards (None: its owner becomes unknown)."""
    indexer = base.obj
    frame: Any = getattr(indexer, "obj", None)
    if (
        base.sampled
        or base.fake
        or not chk.certain
        or not (is_dataframe(frame) or is_series(frame))
        or type_root(type(indexer)) != "pandas"
        or not isinstance(key, Val)
        or not isinstance(value, Val)
        or key.sampled
        or key.fake
        or value.sampled
        or value.fake
        or value.live
        or not (_setting_input(key.obj) and _setting_input(value.obj))
    ):
        return None
    if not rule_inputs_allowed([key.obj, value.obj]):
        return None  # a callable key (`loc[f]`) would be called by pandas
    copy = frame.copy(deep=True)
    try:
        with quiet():
            getattr(copy, INDEXER_NAMES[type(indexer).__name__])[key.obj] = value.obj
    except (TypeError, ValueError, IndexError) as exc:
        text = str(exc).split("\n")[0]
        return Raise(
            exception_code("pandas", exc),
            type(exc).__name__,
            text,
            facts=["dtypes: %s" % preview(["%s %s" % (c, d) for c, d in frame.dtypes.items()])]
            if is_dataframe(frame)
            else ["dtype: %s" % frame.dtype],
            fix="convert the column first (e.g. .astype(float)) or assign a value of its dtype"
            if isinstance(exc, TypeError)
            else None,
            node=target,
        )
    except Exception:
        return None
    return None


def _setting_input(obj: Any, depth: int = 0) -> bool:
    """Plain data or library objects, also inside a tuple or list (never a user object, whose
    `__eq__` or `__hash__` pandas would call)."""
    if type(obj) in (tuple, list):
        return depth < 2 and len(obj) <= 10_000 and all(_setting_input(i, depth + 1) for i in obj)
    return is_plain_data(obj) or is_library_object(obj)


def _length_mismatch(base: Val, value: Any, label: Any, target: ast.Subscript) -> Any:
    """`frame[col] = values` with one value per row expected: a list, tuple, range or 1-D
    array of another length than the frame's true row count is pandas' ValueError."""
    if base.fake or not isinstance(value, Val) or value.sampled or value.fake or value.live:
        return None
    values = value.obj
    np = loaded("numpy")
    one_dimensional = np is not None and type(values) is np.ndarray and values.ndim == 1
    if not (type(values) in (list, tuple, range) or one_dimensional):
        return None
    rows = base.rows if base.sampled else len(base.obj.index)
    if rows is None or len(values) == rows:
        return None
    pd = loaded("pandas")
    try:
        with quiet():  # pandas' own message, from a frame of the true length and no columns
            pd.DataFrame(index=pd.RangeIndex(rows))[label] = values
    except ValueError as exc:
        return Raise(
            "pandas-length-mismatch",
            "ValueError",
            str(exc).split("\n")[0],
            facts=["the frame has %d rows; %d values are assigned" % (rows, len(values))],
            fix="give one value per row, or assign a Series (aligned on the index)",
            node=target,
        )
    except Exception:
        return None
    return None


def set_attribute(chk: Any, target: ast.Attribute, base: Any, value: Any) -> Any:
    """`frame.columns = names` / `frame.index = labels`: the relabelled frame, computed on a
    copy, or the ValueError a length mismatch raises."""
    attr = target.attr
    if attr not in ("columns", "index") or not isinstance(base, Val) or base.fake:
        return None
    frame = base.obj
    if not (is_dataframe(frame) or (is_series(frame) and attr == "index")):
        return None
    if not isinstance(value, Val) or value.fake:
        return None
    labels = value.obj
    pd = loaded("pandas")
    own_index = (
        pd is not None and isinstance(labels, pd.Index) and type_root(type(labels)) == "pandas"
    )
    if value.live and not own_index:
        return None  # the user's own object; an Index (even the user's) is immutable
    if not (is_plain_data(labels) or is_library_object(labels)) or _is_scalar(labels):
        return None
    if attr == "index" and (base.sampled or value.sampled):
        return None  # a sample's rows are not all of them
    copy = frame.copy(deep=False)
    try:
        with quiet():
            setattr(copy, attr, labels)
    except ValueError as exc:
        if attr == "columns":
            size = len(frame.columns)
            fact = "the frame has %d columns: %s" % (size, preview(list(frame.columns)))
            fix: Optional[str] = "give one name per column (%d), or select columns first" % size
        else:
            fact, fix = "it has %d rows" % len(frame.index), None
        return Raise(
            "pandas-value-error",
            "ValueError",
            str(exc).split("\n")[0],
            facts=[fact],
            fix=fix,
            node=target,
        )
    except Exception:
        return Result(UNKNOWN)
    return Result(Val(copy, sampled=base.sampled, rows=base.rows, origin=base.origin))


def _set_columns(base: Val, labels: List[Any], value: Any, target: ast.Subscript) -> Any:
    """`frame[[a, b]] = other_frame`: the columns must match one to one (ValueError), judged
    only on whole frames (a sample's split may have fewer parts than all rows)."""
    if (
        not isinstance(value, Val)
        or value.fake
        or value.sampled
        or base.sampled
        or base.fake
        or not is_dataframe(value.obj)
        or not all(_hashable(label) for label in labels)
    ):
        return None
    frame = base.obj.copy(deep=True)
    try:
        with quiet():
            frame[labels] = value.obj
    except ValueError as exc:
        return Raise(
            "pandas-value-error",
            "ValueError",
            str(exc).split("\n")[0],
            facts=[
                "%d column names on the left, %d columns on the right: %s"
                % (len(labels), len(value.obj.columns), preview(list(value.obj.columns)))
            ],
            fix="name as many columns as the right side has (or select some of them)",
            node=target,
        )
    except Exception:
        return None
    return Result(Val(frame, origin=base.origin))


def _is_scalar(obj: Any) -> bool:
    return (
        type(obj) in (int, float, str, bool)
        or (type(obj).__module__ == "numpy" and not hasattr(obj, "shape"))
        or getattr(obj, "shape", None) == ()
    )


def delete_item(chk: Any, target: ast.Subscript, base: Any, key: Any) -> Any:
    """`del frame[col]`: KeyError when the column is missing, else the frame without it."""
    if not isinstance(base, Val) or not is_dataframe(base.obj) or not isinstance(key, Val):
        return None
    label = key.obj
    if not _hashable(label):
        return None
    frame = base.obj
    if label not in frame.columns:
        try:
            frame.copy(deep=False).__delitem__(label)
        except KeyError as exc:
            return missing_column_raise(frame, label, exc, target, target.slice)
        return None
    return Result(
        Val(frame.drop(columns=[label]), sampled=base.sampled, rows=base.rows, fake=base.fake)
    )


def rows_after(func: Any, inputs: List[Val], site: CallSite) -> Optional[int]:
    """The true row count of a result computed on a sample, when the operation keeps rows."""
    name = getattr(func, "__name__", "")
    if name == "drop" and isinstance(site.func, BoundMethod) and _drop_columns(site) is None:
        return None
    if name in ROW_PRESERVING and inputs:
        return inputs[0].rows
    return None
