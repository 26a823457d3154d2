"""Summaries of torch tensors, nn.Modules, optimizers, datasets and DataLoaders.

Modules, optimizers and loaders are usually user subclasses: they are read only through
their instance dicts (`_modules`, `_parameters`, `param_groups`, `batch_size`, ...), never
through attribute access, `len()` or iteration. Tensor values are sampled only on dense CPU
tensors, on a detached view; nothing is ever moved between devices.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Tuple

from .base import (
    MISSING,
    SummaryOptions,
    class_qualname,
    instance_dict,
    is_a,
    is_library_class,
    json_number,
    library_class,
    one_of,
    safe_label,
    safe_repr,
    type_name,
)

# Attributes that tell what the first layer expects as input, by layer kind.
INPUT_ATTRIBUTES = (
    "in_features",
    "in_channels",
    "num_embeddings",
    "input_size",
    "num_features",
    "normalized_shape",
    "in1_features",
    "embed_dim",
    "d_model",
    "batch_first",
)
OUTPUT_ATTRIBUTES = ("out_features", "out_channels", "hidden_size", "embedding_dim")
_MAX_PARAMETER_TENSORS = 2000


def torch_kind(obj: Any) -> Optional[str]:
    if sys.modules.get("torch") is None:
        return None
    cls = type(obj)
    if is_a(obj, library_class("torch", "Tensor")):
        return "tensor" if is_library_class(cls) else None
    checks = (
        ("torch.nn.modules.module", "Module", "torch_module"),
        ("torch.optim.optimizer", "Optimizer", "optimizer"),
        ("torch.utils.data.dataloader", "DataLoader", "dataloader"),
        ("torch.utils.data.dataset", "Dataset", "dataset"),
    )
    for module, attribute, kind in checks:
        if is_a(obj, library_class(module, attribute)):
            return kind
    return None


def summarise_torch(obj: Any, kind: str, out: Dict[str, Any], opts: SummaryOptions) -> None:
    out["kind"] = kind
    if kind == "tensor":
        summarise_tensor(obj, out, opts)
    elif kind == "torch_module":
        _module(obj, out, opts)
    elif kind == "optimizer":
        _optimizer(obj, out, opts)
    elif kind == "dataloader":
        _dataloader(obj, out, opts)
    else:
        _dataset(obj, out, opts)


def summarise_tensor(tensor: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    torch = sys.modules["torch"]
    shape = [int(dim) for dim in tensor.shape]
    if opts.structure:
        out["shape"] = shape
        if shape:
            out["length"] = shape[0]
    strided = tensor.layout == torch.strided
    on_cpu = tensor.device.type == "cpu"
    if opts.representation:
        out["dtype"] = str(tensor.dtype)
        out["device"] = str(tensor.device)
        out["requires_grad"] = bool(tensor.requires_grad)
        details = out.setdefault("details", {})
        details["layout"] = str(tensor.layout)
        if type(tensor) is not torch.Tensor:
            details["tensor_type"] = type_name(type(tensor))
        if tensor.grad_fn is not None:
            details["grad_fn"] = class_qualname(type(tensor.grad_fn))
    if not opts.values or not strided or not on_cpu or tensor.is_quantized:
        return
    stats = _tensor_stats(torch, tensor, opts)
    if stats:
        out["stats"] = stats
        if stats.get("sampled"):
            out["truncated"] = True


def _tensor_stats(torch: Any, tensor: Any, opts: SummaryOptions) -> Dict[str, Any]:
    data = tensor.detach()
    numel = int(data.numel())
    limit = opts.max_sample_rows
    if numel <= limit:
        flat = data.reshape(-1)
    elif data.is_contiguous():
        positions = torch.linspace(0, numel - 1, limit).long()
        flat = data.view(-1).index_select(0, positions)
    else:
        return {"sampled": True, "skipped": "non-contiguous"}
    stats: Dict[str, Any] = {"sample_size": int(flat.numel()), "sampled": numel > limit}
    if numel == 0:
        return stats
    if flat.dtype.is_floating_point:
        nan = torch.isnan(flat)
        stats["nan"] = int(nan.sum().item())
        stats["inf"] = bool(torch.isinf(flat).any().item())
        finite = flat[~nan]
        if finite.numel():
            stats["min"] = json_number(float(finite.min().item()))
            stats["max"] = json_number(float(finite.max().item()))
    elif flat.dtype == torch.bool:
        stats["true"] = int(flat.sum().item())
    elif not flat.dtype.is_complex:
        stats["min"] = int(flat.min().item())
        stats["max"] = int(flat.max().item())
    if len(tensor.shape) == 0:
        stats["value"] = json_number(flat[0].item()) if not flat.dtype.is_complex else None
    return stats


def _children(module: Any) -> List[Tuple[str, Any]]:
    namespace = instance_dict(module) or {}
    children: Any = dict.get(namespace, "_modules")
    if not is_a(children, dict):
        return []
    return [(str(name), child) for name, child in dict.items(children) if child is not None]


def _parameters(module: Any) -> List[Tuple[str, Any]]:
    namespace = instance_dict(module) or {}
    parameters: Any = dict.get(namespace, "_parameters")
    if not is_a(parameters, dict):
        return []
    return [(str(name), value) for name, value in dict.items(parameters) if value is not None]


def _walk(module: Any, prefix: str, found: List[Tuple[str, Any]], limit: int) -> None:
    """Named parameters depth-first, in registration order, at most `limit`."""
    for name, parameter in _parameters(module):
        if len(found) >= limit:
            return
        found.append((prefix + name, parameter))
    for name, child in _children(module):
        if len(found) >= limit:
            return
        _walk(child, prefix + name + ".", found, limit)


def _leaf(module: Any, last: bool) -> Tuple[str, Any, bool]:
    """The first (or last) leaf module in registration order, and whether only
    Sequential containers lie on the way (then it is certainly the one applied first)."""
    sequential = library_class("torch.nn.modules.container", "Sequential")
    path: List[str] = []
    certain = True
    current = module
    while True:
        children = _children(current)
        if not children:
            return ".".join(path), current, certain
        if not is_a(current, sequential):
            certain = False
        name, current = children[-1] if last else children[0]
        path.append(name)


def _uninitialized(tensor: Any) -> bool:
    """Lazy modules' UninitializedParameter/Buffer: no shape until the first forward."""
    return class_qualname(type(tensor)).startswith("Uninitialized")


def _shape(tensor: Any) -> Optional[List[int]]:
    return None if _uninitialized(tensor) else [int(dim) for dim in tensor.shape]


def _layer_facts(layer: Any, names: Tuple[str, ...]) -> Dict[str, Any]:
    namespace = instance_dict(layer) or {}
    facts: Dict[str, Any] = {}
    if class_qualname(type(layer)).startswith("Lazy"):  # input sizes unknown until first call
        names = tuple(name for name in names if name in OUTPUT_ATTRIBUTES)
        facts["lazy"] = True
    for name in names:
        value = dict.get(namespace, name, MISSING)
        if one_of(value, int, bool):
            facts[name] = value
        elif type(value) is tuple and all(type(item) is int for item in value):
            facts[name] = list(value)
    return facts


def _module(module: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    namespace = instance_dict(module) or {}
    details = out.setdefault("details", {})
    found: List[Tuple[str, Any]] = []
    _walk(module, "", found, _MAX_PARAMETER_TENSORS)
    if opts.structure:
        details["parameters"] = {name: _shape(tensor) for name, tensor in found[: opts.max_items]}
        details["parameter_tensors"] = len(found)
        details["parameter_count"] = sum(
            int(tensor.numel()) for _name, tensor in found if not _uninitialized(tensor)
        )
        if any(_uninitialized(tensor) for _name, tensor in found):
            details["uninitialized_parameters"] = True  # lazy modules before their first call
        if len(found) >= _MAX_PARAMETER_TENSORS or len(found) > opts.max_items:
            out["truncated"] = True
        details["children"] = {
            name: class_qualname(type(child)) for name, child in _children(module)[:20]
        }
        for key, last, names in (
            ("first_layer", False, INPUT_ATTRIBUTES),
            ("last_layer", True, OUTPUT_ATTRIBUTES),
        ):
            path, layer, certain = _leaf(module, last)
            facts = _layer_facts(layer, names)
            if facts:
                facts.update(path=path, type=class_qualname(type(layer)), certain=certain)
                details[key] = facts
    if opts.representation:
        training = dict.get(namespace, "training")
        if type(training) is bool:
            details["training"] = training
        if found and not _uninitialized(found[0][1]):
            first = found[0][1]
            out["device"] = str(first.device)
            out["dtype"] = str(first.dtype)
            out["requires_grad"] = any(bool(tensor.requires_grad) for _n, tensor in found)
        details["user_defined"] = not is_library_class(type(module))


def _optimizer(optimizer: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    namespace = instance_dict(optimizer) or {}
    groups: Any = dict.get(namespace, "param_groups")
    details = out.setdefault("details", {})
    if is_a(groups, list):
        summaries: List[Dict[str, Any]] = []
        for group in list.__iter__(groups):
            if len(summaries) >= 10 or not is_a(group, dict):
                break
            entry: Dict[str, Any] = {}
            for key, value in dict.items(group):
                if key == "params":
                    if is_a(value, list):
                        entry["n_params"] = list.__len__(value)
                elif type(key) is str and len(entry) < opts.max_items:
                    entry[key] = _plain(value)
            summaries.append(entry)
        if opts.representation:
            details["param_groups"] = summaries
        if opts.structure:
            details["n_param_groups"] = list.__len__(groups)
    state: Any = dict.get(namespace, "state")
    if opts.values and is_a(state, dict):
        details["state_entries"] = dict.__len__(state)


def _plain(value: Any) -> Any:
    if one_of(value, bool, int, str, type(None)):
        return value
    if type(value) is float:
        return json_number(value)
    if type(value) is tuple and len(value) <= 8:
        return [_plain(item) for item in value]
    return safe_repr(value, 40)


def _dataloader(loader: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    namespace = instance_dict(loader) or {}
    details = out.setdefault("details", {})
    for key in ("batch_size", "drop_last", "num_workers", "pin_memory", "persistent_workers"):
        value = dict.get(namespace, key, MISSING)
        if one_of(value, int, bool, type(None)):
            details[key] = value
    sampler = dict.get(namespace, "sampler")
    if sampler is not None:
        details["sampler"] = class_qualname(type(sampler))
        details["shuffle"] = class_qualname(type(sampler)) == "RandomSampler"
    collate = dict.get(namespace, "collate_fn")
    if collate is not None:
        details["collate_fn"] = safe_label(_function_name(collate), 80)
    dataset = dict.get(namespace, "dataset")
    if dataset is not None:
        summary: Dict[str, Any] = {"name": "dataset", "type": type_name(type(dataset))}
        _dataset(dataset, summary, opts)
        details["dataset"] = {k: v for k, v in summary.items() if k not in ("name",)}
        length = summary.get("length")
        batch = details.get("batch_size")
        if opts.structure and type(length) is int and type(batch) is int and batch > 0:
            full, rest = divmod(length, batch)
            out["length"] = full if details.get("drop_last") else full + int(rest > 0)


def _function_name(function: Any) -> Any:
    if is_a(function, type(_function_name)):
        return function.__qualname__
    return "<" + type_name(type(function)) + ">"


def _dataset(dataset: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    """Length and tensor shapes of torch's own datasets; user datasets only by type."""
    qualname = class_qualname(type(dataset))
    out.setdefault("kind", "dataset")
    details = out.setdefault("details", {})
    details["user_defined"] = not is_library_class(type(dataset))
    if details["user_defined"]:
        return
    namespace = instance_dict(dataset) or {}
    length: Any = None
    if qualname == "TensorDataset":
        tensors = dict.get(namespace, "tensors")
        if type(tensors) is tuple and tensors:
            shapes = [[int(dim) for dim in tensor.shape] for tensor in tensors[:8]]
            details["tensor_shapes"] = shapes
            length = shapes[0][0] if shapes[0] else None
    elif qualname == "Subset":
        indices = dict.get(namespace, "indices")
        if type(indices) is list or type(indices) is range:
            length = len(indices)
    elif qualname == "ConcatDataset":
        sizes = dict.get(namespace, "cumulative_sizes")
        if type(sizes) is list and sizes:
            length = int(sizes[-1])
    if opts.structure and type(length) is int:
        out["length"] = length
