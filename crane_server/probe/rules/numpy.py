"""NumPy rules: savetxt dimensions, axis bounds and reshape sizes on sampled arrays.

Exact (small) arrays need no rule: pure numpy calls are evaluated for real, so broadcasting,
matmul, concatenate and index errors come out exactly as numpy raises them.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional, Tuple

from ..outcomes import CallSite, Raise, Result
from ..values import UNKNOWN, BoundMethod, Val, is_ndarray, is_plain_data, loaded, true_shape


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    return None


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    obj = base.obj
    if not is_ndarray(obj) or not isinstance(key, Val):
        return None
    index = key.obj
    shape = true_shape(base)
    if shape is None:
        return None
    if type(index) is int:
        return _index_check(shape, (index,), node, base, key)
    if type(index) is tuple and all(type(i) is int for i in index):
        return _index_check(shape, index, node, base, key)
    return None


def _index_check(
    shape: Tuple[int, ...], index: Tuple[int, ...], node: ast.AST, base: Val, key: Val
) -> Any:
    if len(index) > len(shape):
        return Raise(
            "numpy-too-many-indices",
            "IndexError",
            "too many indices for array: array is %d-dimensional, but %d were indexed"
            % (len(shape), len(index)),
            facts=["the array has shape %s" % (shape,)],
            node=node,
        )
    for axis, (position, size) in enumerate(zip(index, shape)):
        if not -size <= position < size:
            return Raise(
                "numpy-index-out-of-bounds",
                "IndexError",
                "index %d is out of bounds for axis %d with size %d" % (position, axis, size),
                facts=["the array has shape %s" % (shape,)],
                node=node,
            )
    if base.sampled:
        return Result(UNKNOWN)
    try:
        return Result(Val(base.obj[index if len(index) > 1 else index[0]], fake=base.fake))
    except Exception:
        return Result(UNKNOWN)


# Item assignment into arrays up to this size is followed.
SET_ITEM_MAX_ELEMENTS = 1_000_000


def set_item(chk: Any, target: ast.Subscript, base: Any, key: Any, value: Any) -> Any:
    """`array[key] = value` on the walk's own array (a shadow copy or a value the walk
    computed, never the user's object), in place, so views and other names of it see the
    change as they would for real: a bad index, a shape that does not broadcast or a value the
    dtype cannot hold (NaN into integers) raises here as it will in the run."""
    if not isinstance(base, Val) or not is_ndarray(base.obj) or base.live or base.sampled:
        return None
    if base.fake or not isinstance(key, Val) or not isinstance(value, Val) or value.fake:
        return None
    if value.sampled or key.sampled or base.obj.size > SET_ITEM_MAX_ELEMENTS:
        return None
    index, item = key.obj, value.obj
    if not (_plain_key(index) and (is_plain_data(item) or is_ndarray(item) or _numpy_scalar(item))):
        return None
    if is_ndarray(item) and item.dtype == object:
        return None
    try:
        from ..quiet import quiet

        with quiet():
            base.obj[index] = item
    except (IndexError, ValueError, TypeError) as exc:
        name = type(exc).__name__
        code = "numpy-index-out-of-bounds" if name == "IndexError" else "numpy-value-error"
        return Raise(
            code,
            name,
            str(exc).split("\n")[0],
            facts=["the array has shape %s, dtype %s" % (tuple(base.obj.shape), base.obj.dtype)],
            node=target,
        )
    except Exception:
        return None
    return Result(base)


def _plain_key(index: Any) -> bool:
    """int, slice, tuple of those, or an integer/boolean index array."""
    if type(index) in (int, slice, type(None), type(Ellipsis)):
        return True
    if type(index) is tuple:
        return all(_plain_key(part) for part in index)
    return is_ndarray(index) and index.dtype.kind in ("i", "u", "b")


def _numpy_scalar(obj: Any) -> bool:
    np = loaded("numpy")
    return np is not None and isinstance(obj, np.generic) and not isinstance(obj, np.object_)


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    return None


def on_call(chk: Any, site: CallSite) -> Any:
    np = loaded("numpy")
    if np is None:
        return None
    func = site.func
    drawn = _seeded_generator(chk, site)
    if drawn is not None:
        return drawn
    writer = getattr(func.obj, "__name__", "") if isinstance(func, Val) else ""
    if (
        writer in NUMPY_WRITERS
        and isinstance(func, Val)
        and func.obj is getattr(np, writer, None)
        and not chk.files_unreliable
    ):
        from ..files import missing_folder

        target = site.arg(0, "fname" if writer == "savetxt" else "file")
        found = missing_folder(target, site, "FileNotFoundError")
        if found is not None:
            return found
    if (
        isinstance(func, Val)
        and getattr(func.obj, "__name__", "") == "savetxt"
        and func.obj is getattr(np, "savetxt", None)
    ):
        return _savetxt(site)
    receiver: Optional[Val] = None
    if isinstance(func, BoundMethod) and is_ndarray(func.receiver.obj):
        receiver = func.receiver
        if func.name == "reshape":
            return _reshape(
                site,
                receiver,
                list(site.args) + ([site.kwargs["shape"]] if "shape" in site.kwargs else []),
            )
    if (
        isinstance(func, Val)
        and getattr(func.obj, "__name__", "") == "reshape"
        and func.obj is getattr(np, "reshape", None)
    ) and (
        site.args
        and isinstance(site.args[0], Val)
        and is_ndarray(site.args[0].obj)
        and site.args[0].sampled
    ):
        return _reshape(
            site,
            site.args[0],
            list(site.args[1:]) + ([site.kwargs["newshape"]] if "newshape" in site.kwargs else []),
        )
    # On sampled arrays, an axis error is the same as on the full array.
    sampled_inputs = [
        v for v in list(site.args) + list(site.kwargs.values()) if isinstance(v, Val) and v.sampled
    ]
    if receiver is not None and receiver.sampled:
        sampled_inputs.append(receiver)
    axis = site.kwargs.get("axis")
    if sampled_inputs and isinstance(axis, Val) and type(axis.obj) is int:
        array = sampled_inputs[0].obj
        if is_ndarray(array) and not -array.ndim <= axis.obj < array.ndim:
            return Raise(
                "numpy-axis-error",
                "AxisError",
                "axis %d is out of bounds for array of dimension %d" % (axis.obj, array.ndim),
                facts=["the array has shape %s" % (true_shape(sampled_inputs[0]),)],
                node=site.node,
            )
    return None


# Functions that write their first argument's path (numpy adds no extension to a folder).
NUMPY_WRITERS = frozenset({"save", "savez", "savez_compressed", "savetxt"})
# Draws of numpy.random.Generator / RandomState evaluated on the walk's own generator.
DRAWS = frozenset(
    """integers random normal uniform choice permutation standard_normal binomial poisson
    exponential beta gamma lognormal multinomial multivariate_normal dirichlet laplace logistic
    geometric chisquare rand randn randint random_sample standard_exponential triangular
    bytes""".split()
)
MAX_DRAWN = 1_000_000


def _seeded_generator(chk: Any, site: CallSite) -> Any:
    """A generator seeded with an explicit number is deterministic state of its own: built
    for real (`np.random.default_rng(0)`, `np.random.RandomState(42)`), and its draws are
    evaluated on the walk's own copy on paths that certainly run, in the order the run makes
    them, so they are the values the run will draw. The global RNG is never touched."""
    rnd = loaded("numpy.random")
    if rnd is None:
        return None
    func = site.func
    # identity, never `in` (a tuple's `in` calls a user object's __eq__)
    if isinstance(func, Val) and (func.obj is rnd.default_rng or func.obj is rnd.RandomState):
        seed = site.arg(0, "seed")
        if site.has_star or len(site.args) + len(site.kwargs) != 1 or not _plain_seed(seed):
            return None
        from ..quiet import quiet

        with quiet():
            generator = func.obj(seed.obj)
        return Result(Val(generator, origin="seeded"))
    if not isinstance(func, BoundMethod) or func.name not in DRAWS:
        return None
    receiver = func.receiver
    kind = type(receiver.obj)
    if not (kind is rnd.Generator or kind is rnd.RandomState) or receiver.live:
        return None
    if not chk.certain or site.has_star:
        return None  # a draw that may not happen: the generator is forgotten (havoc)
    values = list(site.args) + list(site.kwargs.values())
    if not all(isinstance(v, Val) and not (v.live or v.fake or v.sampled) for v in values):
        return None
    if not all(is_plain_data(v.obj) or is_ndarray(v.obj) for v in values):
        return None
    if _drawn_size(site) > MAX_DRAWN:
        return None
    from ..quiet import quiet

    try:
        with quiet():
            result = getattr(receiver.obj, func.name)(
                *[v.obj for v in site.args], **{k: v.obj for k, v in site.kwargs.items()}
            )
    except (ValueError, TypeError, IndexError) as exc:
        return Raise(
            "numpy-random-error",
            type(exc).__name__,
            str(exc).split("\n")[0],
            facts=["%s.%s with these arguments" % (type(receiver.obj).__name__, func.name)],
            node=site.node,
        )
    except Exception:
        return Result(UNKNOWN)
    return Result(Val(result, origin="seeded"))


def _plain_seed(seed: Any) -> bool:
    if not isinstance(seed, Val):
        return False
    value = seed.obj
    if type(value) is int:
        return value >= 0
    return (
        type(value) in (tuple, list)
        and bool(value)
        and all(type(v) is int and v >= 0 for v in value)
    )


def _drawn_size(site: CallSite) -> int:
    """How many numbers a draw makes (from `size` or the positional sizes of rand/randn)."""
    size = site.kwargs.get("size")
    shape: Any = size.obj if isinstance(size, Val) else None
    func = site.func
    if shape is None and isinstance(func, BoundMethod) and func.name in ("rand", "randn"):
        shape = tuple(v.obj for v in site.args if isinstance(v, Val))
    if shape is None:
        for value in site.args[1:]:
            if isinstance(value, Val) and (type(value.obj) is int or type(value.obj) is tuple):
                shape = value.obj
    if shape is None:
        return 1
    if type(shape) is int:
        return shape
    if (type(shape) is tuple or type(shape) is list) and all(type(d) is int for d in shape):
        total = 1
        for d in shape:
            total *= d
        return total
    return MAX_DRAWN + 1


def _savetxt(site: CallSite) -> Any:
    data = site.arg(1, "X")
    if not isinstance(data, Val):
        return Result(UNKNOWN)
    shape = true_shape(data)
    if shape is None:
        return Result(UNKNOWN)
    if len(shape) == 0 or len(shape) > 2:
        return Raise(
            "numpy-savetxt-dimensions",
            "ValueError",
            "Expected 1D or 2D array, got %dD array instead" % len(shape),
            facts=["the array has shape %s" % (shape,)],
            fix="reshape to 2-D first (e.g. x.reshape(x.shape[0], -1)) or use np.save",
            node=site.node,
        )
    return Result(UNKNOWN)


def _reshape(site: CallSite, array: Val, shape_args: List[Any]) -> Any:
    if not array.sampled:
        return None
    shape = true_shape(array)
    if shape is None or not shape_args or not all(isinstance(v, Val) for v in shape_args):
        return Result(UNKNOWN)
    wanted = shape_args[0].obj if len(shape_args) == 1 else tuple(v.obj for v in shape_args)
    if type(wanted) is int:
        wanted = (wanted,)
    if type(wanted) not in (tuple, list) or not all(type(d) is int for d in wanted):
        return Result(UNKNOWN)
    size = 1
    for d in shape:
        size *= d
    known = 1
    for d in wanted:
        if d != -1:
            known *= d
    unknown_dims = list(wanted).count(-1)
    fits = (
        (size == known)
        if unknown_dims == 0
        else (unknown_dims == 1 and known and size % known == 0)
    )
    if not fits:
        return Raise(
            "numpy-reshape-size",
            "ValueError",
            "cannot reshape array of size %d into shape %s" % (size, tuple(wanted)),
            facts=["the array has shape %s" % (shape,)],
            node=site.node,
        )
    return Result(UNKNOWN)
