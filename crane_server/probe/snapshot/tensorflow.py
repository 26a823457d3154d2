"""Summaries of TensorFlow tensors, tf.data datasets and Keras models (written defensively).

Classes are recognised by the module and name of a class in the MRO, so nothing here ever
imports TensorFlow or Keras; attributes are read only when library code defines both the
attribute and attribute access of the object's class (`library_attr`).
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional

from .base import (
    MISSING,
    SummaryOptions,
    class_module,
    class_qualname,
    library_attr,
    one_of,
    truncate,
    type_mro,
)

ROOTS = frozenset(("tensorflow", "keras", "tf_keras", "builtins"))
_TENSOR_NAMES = frozenset(
    ("Tensor", "EagerTensor", "_EagerTensorBase", "SymbolicTensor", "KerasTensor", "Variable")
)
_DATASET_NAMES = frozenset(("DatasetV2", "DatasetV1"))
_MODEL_NAMES = frozenset(("Model", "Functional", "Sequential"))


def tf_kind(obj: Any) -> Optional[str]:
    if not any(sys.modules.get(root) is not None for root in ("tensorflow", "keras", "tf_keras")):
        return None
    for cls in type_mro(type(obj)):
        if class_module(cls).partition(".")[0] not in ROOTS - {"builtins"}:
            continue
        name = class_qualname(cls)
        if name in _MODEL_NAMES:
            return "keras_model"
        if name in _DATASET_NAMES:
            return "tf_dataset"
        if name in _TENSOR_NAMES or name.endswith("Variable"):
            return "tf_tensor"
    return None


def _attr(obj: Any, name: str) -> Any:
    return library_attr(obj, name, ROOTS)


def _shape(shape: Any) -> Optional[List[Optional[int]]]:
    """A TensorShape / tuple as a list (None for unknown dimensions)."""
    if shape is MISSING or shape is None:
        return None
    as_list = _attr(shape, "as_list")
    try:
        dims = as_list() if callable(as_list) else list(shape)
    except Exception:
        return None
    return [dim if type(dim) is int else None for dim in dims]


def summarise_tf(obj: Any, kind: str, out: Dict[str, Any], opts: SummaryOptions) -> None:
    out["kind"] = kind
    if kind == "tf_tensor":
        _tensor(obj, out, opts)
    elif kind == "tf_dataset":
        _dataset(obj, out, opts)
    else:
        _model(obj, out, opts)


def _tensor(tensor: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    shape = _shape(_attr(tensor, "shape"))
    if opts.structure and shape is not None:
        out["shape"] = shape
        if shape:
            out["length"] = shape[0]
    if opts.representation:
        dtype = _attr(tensor, "dtype")
        name = _attr(dtype, "name") if dtype is not MISSING else MISSING
        if type(name) is str:
            out["dtype"] = name
        device = _attr(tensor, "device")
        if type(device) is str and device:
            out["device"] = device


def _dataset(dataset: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    details = out.setdefault("details", {})
    if opts.structure or opts.representation:
        spec = _attr(dataset, "element_spec")
        if spec is not MISSING:
            try:
                details["element_spec"] = truncate(str(spec), 400)
            except Exception:
                pass
    if opts.structure:
        cardinality = _attr(dataset, "cardinality")
        try:
            value = int(cardinality().numpy()) if callable(cardinality) else None
        except Exception:
            value = None
        if value is not None:
            details["cardinality"] = value  # -1 infinite, -2 unknown
            if value >= 0:
                out["length"] = value


def _model(model: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    details = out.setdefault("details", {})
    built = _attr(model, "built")
    if type(built) is bool and opts.representation:
        details["built"] = built
    if opts.structure:
        for key, attribute in (("input_shapes", "inputs"), ("output_shapes", "outputs")):
            tensors = _attr(model, attribute)
            if one_of(tensors, list, tuple):
                details[key] = [_shape(_attr(tensor, "shape")) for tensor in tensors[:8]]
        layers = _attr(model, "layers")
        if type(layers) is list:
            details["n_layers"] = len(layers)
            details["layers"] = [class_qualname(type(layer)) for layer in layers[: opts.max_items]]
    if opts.representation:
        optimizer = _attr(model, "optimizer")
        details["compiled"] = optimizer is not MISSING and optimizer is not None
