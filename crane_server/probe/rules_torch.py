"""PyTorch rules: library layers and losses evaluated on the real (small) tensors.

Only stateless, deterministic library modules are run (no dropout, no batch norm in
training mode, no user-defined forward); `forward` is called directly, so no hooks run.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional

from .outcomes import CallSite, Raise, Result
from .values import UNKNOWN, BoundMethod, Val, is_tensor, loaded

SAFE_LAYERS = frozenset(
    """Linear Bilinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d Embedding ReLU ReLU6
    LeakyReLU ELU SELU GELU SiLU Tanh Sigmoid Softmax LogSoftmax Softplus Flatten Unflatten Identity
    MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d
    LayerNorm""".split()
)
MAX_BATCH = 8


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    return None


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    return None


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    return None


def _library_module(module: Any) -> bool:
    nn = loaded("torch.nn")
    return nn is not None and isinstance(module, nn.Module) and type(module).__module__.startswith("torch.nn")


def _is_loss(module: Any) -> bool:
    loss = loaded("torch.nn.modules.loss")
    return loss is not None and isinstance(module, loss._Loss) and type(module).__module__.startswith("torch.nn")


def _runnable(module: Any) -> bool:
    name = type(module).__name__
    if name == "Sequential":
        return all(_runnable(child) for child in module.children())
    return name in SAFE_LAYERS and not module._forward_hooks and not module._forward_pre_hooks


def _run(module: Any, tensor: Any) -> Any:
    if type(module).__name__ == "Sequential":
        for child in module.children():
            tensor = _run(child, tensor)
        return tensor
    return module.forward(tensor)


PARAMETER_FREE = frozenset(
    """ReLU ReLU6 LeakyReLU ELU SELU GELU SiLU Tanh Sigmoid Softmax LogSoftmax Softplus Flatten
    Unflatten Identity MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d
    AdaptiveAvgPool1d AdaptiveAvgPool2d""".split()
)


def _construct(site: CallSite, cls: type) -> Any:
    """Losses and parameter-free layers draw no random numbers: build them for real."""
    values = list(site.args) + list(site.kwargs.values())
    if site.has_star or not all(isinstance(v, Val) and type(v.obj) in (int, float, str, bool, type(None), tuple) for v in values):
        return None
    try:
        from .checker import quiet

        with quiet():
            return Result(Val(cls(*[v.obj for v in site.args], **{k: v.obj for k, v in site.kwargs.items()})))
    except TypeError:
        return None
    except Exception:
        return Result(UNKNOWN)


def on_call(chk: Any, site: CallSite) -> Any:
    func = site.func
    if isinstance(func, Val) and isinstance(func.obj, type) and type(func.obj).__module__ != "abc":
        loss = loaded("torch.nn.modules.loss")
        cls = func.obj
        if loss is not None and cls.__module__.startswith("torch.nn") and (
                issubclass(cls, loss._Loss) or cls.__name__ in PARAMETER_FREE):
            return _construct(site, cls)
    if not isinstance(func, Val) or not _library_module(func.obj):
        return None
    module = func.obj
    if site.has_star or site.kwargs or not all(isinstance(a, Val) for a in site.args):
        return Result(UNKNOWN)
    tensors: List[Val] = list(site.args)
    if any(v.fake or v.sampled or not is_tensor(v.obj) for v in tensors):
        return Result(UNKNOWN)
    from .checker import quiet

    if _is_loss(module) and len(tensors) == 2:
        try:
            with quiet():
                result = type(module).forward(module, tensors[0].obj, tensors[1].obj)
        except Exception as exc:
            return _raise(site, exc, module, tensors)
        return Result(Val(result))
    if len(tensors) != 1 or not _runnable(module):
        return Result(UNKNOWN)
    tensor = tensors[0].obj
    if tensor.dim() > 1 and tensor.shape[0] > MAX_BATCH:
        tensor = tensor[:MAX_BATCH]
        sampled = True
    else:
        sampled = False
    try:
        with quiet():
            result = _run(module, tensor)
    except Exception as exc:
        return _raise(site, exc, module, tensors)
    if sampled:
        return Result(Val(result, sampled=True, rows=int(tensors[0].obj.shape[0])))
    return Result(Val(result))


def _raise(site: CallSite, exc: BaseException, module: Any, tensors: List[Val]) -> Raise:
    facts = ["%s: %s" % (type(module).__name__, _module_text(module))]
    for index, value in enumerate(tensors):
        t = value.obj
        facts.append("argument %d: tensor of shape %s, dtype %s" % (index, tuple(t.shape), str(t.dtype).replace("torch.", "")))
    name = type(exc).__name__
    message = str(exc).split("\n")[0]
    code = "torch-shape-mismatch"
    if "dtype" in message or "Expected floating point type" in message or "Long" in message or "Float" in message:
        code = "torch-dtype-mismatch"
    if _is_loss(module):
        code = "torch-loss-input"
    return Raise(code, name, message, facts=facts, node=site.node)


def _module_text(module: Any) -> str:
    try:
        return module.extra_repr() or type(module).__name__
    except Exception:
        return type(module).__name__


def tensor_method_error(exc: BaseException, receiver: Any, name: str) -> Optional[str]:
    return None
