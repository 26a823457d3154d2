"""PyTorch rules: library layers and losses evaluated on the real (small) tensors.

Only deterministic library modules are run, on shadow copies (a batch norm in training mode
updates its shadow's running statistics, never the user's); dropout is run as in evaluation
mode, so its output has the right shape and dtype but not the values of a training step
(marked a stand-in). `forward` is called directly, so no hooks run.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional

from .. import shadows
from ..outcomes import CallSite, Raise, Result
from ..shadows import from_namespace
from ..values import UNKNOWN, BoundMethod, Val, as_dict, is_tensor, loaded, type_root

SAFE_LAYERS = frozenset(
    """Linear Bilinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d Embedding ReLU ReLU6
    LeakyReLU ELU SELU GELU SiLU Tanh Sigmoid Softmax LogSoftmax Softplus Flatten Unflatten Identity
    MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d
    LayerNorm BatchNorm1d BatchNorm2d BatchNorm3d GroupNorm InstanceNorm1d InstanceNorm2d
    InstanceNorm3d""".split()
)
# Run as in evaluation mode (no random draw): same shape and dtype, other values in training.
DROPOUTS = frozenset(
    "Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout".split()
)
# Recurrent layers: deterministic forward; dropout between their layers is run as in
# evaluation mode (same shapes). `forward(input, hx)` takes an initial state too.
RECURRENT = frozenset({"RNN", "GRU", "LSTM"})
# Layers run on inputs of at most this many elements (a few milliseconds on a CPU).
MAX_INPUT_ELEMENTS = 4_000_000
# A recurrent layer costs about input elements x hidden size: above this, on the meta device.
MAX_RECURRENT_WORK = 20_000_000


# Tensor state that autograd writes during `backward()`, which the walk does not run.
AUTOGRAD_STATE = frozenset({"grad", "grad_fn", "_grad"})


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    """Submodules, parameters and buffers of a user nn.Module, read from its registries."""
    nn = loaded("torch.nn")
    obj = base.obj
    if node.attr in AUTOGRAD_STATE and is_tensor(obj):
        return Result(UNKNOWN)  # `backward()` (not followed) fills them in
    if nn is None or not isinstance(obj, nn.Module) or type(obj).__module__.startswith("torch"):
        return None
    instance = as_dict(obj)
    if node.attr in instance:
        return None
    for registry in ("_parameters", "_buffers", "_modules"):
        found = instance.get(registry)
        if type(found) is dict and node.attr in found:
            return Result(from_namespace(found[node.attr]))
    return None


def loader_batch(loader: Any, chk: Any = None, node: Any = None) -> Optional[Any]:
    """One batch shaped like those a DataLoader over tensors yields, built without iterating it.

    For the default collate over a TensorDataset (or a Subset of one): the rows are the
    first ones rather than a shuffled pick, so shapes and dtypes are exact, values are not.
    Over a user Dataset (with `chk`, the walk): its `__getitem__(0)` is walked, never called,
    and the batch is that item repeated (see `_user_dataset_batch`).
    """
    data = loaded("torch.utils.data")
    if data is None or type(loader) is not getattr(data, "DataLoader", None):
        return None
    collate = loaded("torch.utils.data._utils.collate")
    if collate is None or loader.collate_fn is not getattr(collate, "default_collate", None):
        return None
    batch_size = loader.batch_size
    if type(batch_size) is not int or batch_size < 1:
        return None
    dataset = loader.dataset
    indices: Optional[List[int]] = None
    if type(dataset) is getattr(data, "Subset", None):
        indices = list(dataset.indices[:batch_size])
        dataset = dataset.dataset
    if type(dataset) is not getattr(data, "TensorDataset", None):
        if indices is None and chk is not None:
            return _user_dataset_batch(chk, loader, dataset, batch_size, node)
        return None
    tensors = dataset.tensors
    if indices is None:
        rows = min(batch_size, len(tensors[0]))
        return [t[:rows] for t in tensors]
    return [t[indices] for t in tensors]


# A user Dataset's item is batched for real up to this many elements, else on the meta device.
USER_BATCH_ELEMENTS = 1_000_000


def _user_dataset_batch(
    chk: Any, loader: Any, dataset: Any, batch_size: int, node: Any
) -> Optional[List[Any]]:
    """The first batch of a DataLoader over a user Dataset, as the default collate builds it:
    `__getitem__(0)` and `__len__()` are walked (never called), and the item's tensors are
    stacked `batch_size` times (fewer when the dataset is shorter). Shapes and dtypes are those
    of the run when every item has the same shape; values are not. A crash inside
    `__getitem__` is reported only when the loader reads index 0 first (no shuffling)."""
    data = loaded("torch.utils.data")
    torch = loaded("torch")
    if data is None or torch is None:
        return None
    # issubclass on the exact type (isinstance would read a user `__class__`)
    if not issubclass(type(dataset), data.Dataset) or type_root(type(dataset)) == "torch":
        return None
    if loader.batch_sampler is None or type(loader.batch_sampler) is not data.BatchSampler:
        return None
    sequential = type(loader.sampler) is data.SequentialSampler
    if not sequential and type(loader.sampler) is not data.RandomSampler:
        return None
    where = node if node is not None else ast.Pass()
    length = chk.walk_user_method(dataset, "__len__", [], where, muted=True)
    if not isinstance(length, Val) or type(length.obj) is not int or length.obj < 1:
        return None
    item = chk.walk_user_method(dataset, "__getitem__", [Val(0)], where, muted=not sequential)
    if not isinstance(item, Val) or item.fake or item.live or item.sampled:
        return None
    rows = min(batch_size, length.obj)
    if not (type(item.obj) is tuple or type(item.obj) is list) or not item.obj:
        return None  # a bare tensor or a dict item: not modelled
    batched = [_stacked(torch, field, rows) for field in item.obj]
    if any(b is None for b in batched):
        return None
    return batched


def _stacked(torch: Any, field: Any, rows: int) -> Any:
    """What the default collate makes of `rows` copies of one item's field (None: unsure)."""
    np = loaded("numpy")
    kind = type(field)
    if kind is bool:
        return None
    if kind is int:
        return torch.full((rows,), field, dtype=torch.int64)
    if kind is float:
        return torch.full((rows,), field, dtype=torch.float64)
    if np is not None and kind is np.ndarray and field.dtype.kind in "biuf":
        field = torch.from_numpy(np.array(field, copy=True))
    if not is_tensor(field) or type(field) is not torch.Tensor or field.is_meta:
        return None
    shape = (rows, *tuple(field.shape))
    if field.numel() * rows > USER_BATCH_ELEMENTS:
        return torch.empty(shape, dtype=field.dtype, device="meta")
    return field.detach().unsqueeze(0).expand(shape).clone()


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    return None


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    return None


def _library_module(module: Any) -> bool:
    nn = loaded("torch.nn")
    return (
        nn is not None
        and isinstance(module, nn.Module)
        and type(module).__module__.startswith("torch.nn")
    )


def _is_loss(module: Any) -> bool:
    loss = loaded("torch.nn.modules.loss")
    return (
        loss is not None
        and isinstance(module, loss._Loss)
        and type(module).__module__.startswith("torch.nn")
    )


def _runnable(module: Any) -> bool:
    name = type(module).__name__
    if name == "Sequential":
        return all(_runnable(child) for child in module.children())
    known = name in SAFE_LAYERS or name in DROPOUTS or name in RECURRENT
    return known and not module._forward_hooks and not module._forward_pre_hooks


def _shadow(tensor: Any, meta: bool = False) -> Any:
    """An independent copy of an input: in-place layers (ReLU(inplace=True)) write into it."""
    return tensor.detach().to("meta") if meta else tensor.detach().clone()


def _run(module: Any, tensor: Any, state: Any = None) -> "tuple[Any, bool]":
    """The module's output, and whether its values are those of the real call (dropout in
    training mode draws a random mask: only its shape and dtype are). `state`: the initial
    state handed to a recurrent layer."""
    name = type(module).__name__
    if name in RECURRENT:
        import copy

        drops = bool(module.training) and float(getattr(module, "dropout", 0.0)) > 0.0
        if drops:
            module = copy.copy(module)
            module.training = False
        return (module.forward(tensor) if state is None else module.forward(tensor, state)), (
            not drops
        )
    if type(module).__name__ == "Sequential":
        exact = True
        for child in module.children():
            tensor, same = _run(child, tensor)
            exact = exact and same
        return tensor, exact
    if type(module).__name__ in DROPOUTS:
        import copy

        evaluating = copy.copy(module)
        drops = bool(module.training) and float(getattr(module, "p", 0.0)) > 0.0
        evaluating.training = False
        return evaluating.forward(tensor), not drops
    return module.forward(tensor), True


PARAMETER_FREE = frozenset(
    """ReLU ReLU6 LeakyReLU ELU SELU GELU SiLU Tanh Sigmoid Softmax LogSoftmax Softplus Flatten
    Unflatten Identity MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d
    AdaptiveAvgPool1d AdaptiveAvgPool2d""".split()
)


# Layers whose parameters start as ones and zeros (no random draw): built for real too.
DETERMINISTIC_INIT = DROPOUTS | frozenset(
    """BatchNorm1d BatchNorm2d BatchNorm3d LayerNorm GroupNorm InstanceNorm1d InstanceNorm2d
    InstanceNorm3d""".split()
)


def _construct(site: CallSite, cls: type) -> Any:
    """Losses and parameter-free layers draw no random numbers: build them for real."""
    values = list(site.args) + list(site.kwargs.values())
    if site.has_star or not all(
        isinstance(v, Val) and type(v.obj) in (int, float, str, bool, type(None), tuple)
        for v in values
    ):
        return None
    try:
        from ..quiet import quiet

        with quiet():
            return Result(
                Val(cls(*[v.obj for v in site.args], **{k: v.obj for k, v in site.kwargs.items()}))
            )
    except TypeError:
        return None
    except Exception:
        return Result(UNKNOWN)


# A layer with random initial weights is built by the walk only up to this many parameters.
MAX_BUILT_PARAMETERS = 2_000_000
# Containers of layers: built from layers the walk built or holds shadows of.
CONTAINERS = frozenset({"Sequential"})


def _literal_args(site: CallSite) -> bool:
    values = list(site.args) + list(site.kwargs.values())
    return not site.has_star and all(
        isinstance(v, Val) and type(v.obj) in (int, float, str, bool, type(None), tuple)
        for v in values
    )


def _construct_drawing(site: CallSite, cls: type) -> Any:
    """A layer whose weights start random (Linear, Conv2d, LSTM...): counted on the meta
    device, then built for real with torch's random state saved and restored, so the kernel's
    next draw is the one it would have been. Its weights are not the run's: a stand-in."""
    torch = loaded("torch")
    if torch is None or not _literal_args(site):
        return None
    args = [v.obj for v in site.args]
    kwargs = {k: v.obj for k, v in site.kwargs.items()}
    if "device" in kwargs or "dtype" in kwargs or not _plain_construction(torch):
        return Result(UNKNOWN)
    from ..quiet import quiet

    try:
        with quiet():
            counted = cls(*args, device="meta", **kwargs)
            size = sum(int(p.numel()) for p in counted.parameters())
            if size > MAX_BUILT_PARAMETERS:
                return Result(UNKNOWN)
            state = torch.get_rng_state()
            try:
                built = cls(*args, **kwargs)
            finally:
                torch.set_rng_state(state)
    except Exception:
        return Result(UNKNOWN)
    return Result(Val(built, origin="standin"))


def _plain_construction(torch: Any) -> bool:
    """Building a layer draws from the CPU generator only and calls no user code: no default
    device set elsewhere (its generator would move) and no global registration hooks."""
    default_device = getattr(torch, "get_default_device", None)
    if default_device is None or str(default_device()) != "cpu":
        return False
    registry = loaded("torch.nn.modules.module")
    return registry is not None and not any(
        getattr(registry, name, None)
        for name in (
            "_global_module_registration_hooks",
            "_global_parameter_registration_hooks",
            "_global_buffer_registration_hooks",
        )
    )


def _construct_container(site: CallSite, cls: type) -> Any:
    """`nn.Sequential(layer, ...)` over layers the walk built (or shadows of the user's)."""
    parts = list(site.args)
    if site.has_star or site.kwargs or not parts:
        return None
    if not all(isinstance(v, Val) and not v.live and _library_module(v.obj) for v in parts):
        return Result(UNKNOWN)
    from ..quiet import quiet

    try:
        with quiet():
            built = cls(*[v.obj for v in parts])
    except Exception:
        return Result(UNKNOWN)
    standin = any(v.origin == "standin" for v in parts)
    return Result(Val(built, origin="standin" if standin else ""))


# Module methods that only flip flags: the module's layers and shapes stay as they are.
FLAG_METHODS = frozenset({"train", "eval", "zero_grad"})
# nn.Module methods that only read its registries: `optim.SGD(model.parameters())` leaves
# the model as it was (an optimizer's step changes weight values, never shapes or dtypes).
READING_METHODS = frozenset(
    """parameters named_parameters buffers named_buffers children named_children modules
    named_modules state_dict extra_repr get_submodule get_parameter""".split()
)


DEVICE_MOVES = frozenset({"to", "cpu", "cuda"})


def _device_move(site: CallSite, func: BoundMethod) -> Any:
    """`x.to(device)`, `x.cpu()`, `model.to(device)`: the same shapes on another device. The
    walk never moves anything (a GPU is state of its own): a tensor keeps its shadow, a module
    is itself (Module.to returns self). A dtype in `.to(...)` converts a tensor's shadow;
    anything else is not followed."""
    import inspect

    torch = loaded("torch")
    nn = loaded("torch.nn")
    receiver = func.receiver
    if torch is None or nn is None or site.has_star:
        return None
    values = list(site.args) + list(site.kwargs.values())
    if not all(isinstance(v, Val) for v in values):
        return None
    dtypes = [v.obj for v in values if type(v.obj) is torch.dtype]
    devices = [v for v in values if type(v.obj) is not torch.dtype]
    allowed = set(site.kwargs) <= {"device", "dtype", "non_blocking", "copy"}
    if not allowed or not all(_reachable_device(torch, v.obj) for v in devices):
        return None
    if func.name == "cuda" and not torch.cuda.is_initialized():
        return None
    if isinstance(receiver.obj, nn.Module):
        method = inspect.getattr_static(type(receiver.obj), func.name, None)
        if dtypes or method is not getattr(nn.Module, func.name, None):
            return None
        return Result(receiver)
    if not is_tensor(receiver.obj) or receiver.live or len(dtypes) > 1:
        return None
    if not dtypes:
        return Result(receiver)
    from ..quiet import quiet

    try:
        with quiet():
            moved = receiver.obj.to(dtypes[0])
    except Exception:
        return Result(UNKNOWN)
    return Result(Val(moved, sampled=receiver.sampled, rows=receiver.rows, origin=receiver.origin))


def _reachable_device(torch: Any, obj: Any) -> bool:
    """A device argument the real call will certainly reach: the CPU, or CUDA once this
    kernel has used it (a flag read; nothing is initialised). Flags are not devices."""
    if type(obj) in (bool, type(None)):
        return True
    try:
        kind = torch.device(obj).type if type(obj) in (str, int, torch.device) else None
    except Exception:
        return False
    return kind == "cpu" or (kind == "cuda" and bool(torch.cuda.is_initialized()))


class FirstBatch:
    """`iter(loader)`: an iterator whose `next` gives one representative batch."""

    def __init__(self, batch: Any) -> None:
        self.batch = batch


def _first_batch(chk: Any, site: CallSite) -> Any:
    """`next(iter(loader))`: the batch a DataLoader over tensors yields first (a stand-in:
    shapes and dtypes exact, values not)."""
    import builtins

    func = site.func
    if not isinstance(func, Val) or len(site.args) != 1 or site.kwargs or site.has_star:
        return None
    given = site.args[0]
    if not isinstance(given, Val):
        return None
    if func.obj is builtins.iter:
        batch = loader_batch(given.obj, chk, site.node)
        if batch is not None:
            batch = shadows.shadow_batch(batch)
        return Result(Val(FirstBatch(batch), origin="standin")) if batch is not None else None
    if func.obj is builtins.next and isinstance(given.obj, FirstBatch):
        return Result(Val(given.obj.batch, origin="standin"))
    return None


# Calls that change what later factories and layers build: after one, none is built.
DEFAULT_SETTERS = ("set_default_dtype", "set_default_tensor_type", "set_default_device")
# Factories whose result depends on the default dtype or device.
DEFAULT_DEPENDENT = frozenset("zeros ones full arange linspace eye tensor as_tensor empty".split())


def _defaults(chk: Any, site: CallSite, torch: Any, nn: Any) -> Any:
    """Follow changes of torch's defaults: once one may have happened, build nothing."""
    func = site.func
    if not isinstance(func, Val):
        return None
    if any(func.obj is getattr(torch, name, None) for name in DEFAULT_SETTERS):
        chk.torch_defaults_changed[0] = True
        return None
    if chk.torch_defaults_changed[0]:
        builds = isinstance(func.obj, type) and issubclass(func.obj, nn.Module)
        if builds or any(func.obj is getattr(torch, name, None) for name in DEFAULT_DEPENDENT):
            return Result(UNKNOWN)
    return None


def on_call(chk: Any, site: CallSite) -> Any:
    func = site.func
    nn = loaded("torch.nn")
    torch = loaded("torch")
    if torch is not None and nn is not None:
        unknown = _defaults(chk, site, torch, nn)
        if unknown is not None:
            return unknown
    if (
        torch is not None
        and isinstance(func, Val)
        and func.obj is getattr(torch, "save", None)
        and not chk.files_unreliable
    ):
        from ..files import missing_folder

        found = missing_folder(site.arg(1, "f"), site, "RuntimeError")
        if found is not None:
            return found
    first = _first_batch(chk, site)
    if first is not None:
        return first
    if isinstance(func, BoundMethod) and func.name in DEVICE_MOVES:
        moved = _device_move(site, func)
        if moved is not None:
            return moved
    if (
        isinstance(func, BoundMethod)
        and nn is not None
        and isinstance(func.receiver.obj, nn.Module)
        and func.name in READING_METHODS
        and _library_method(func.receiver.obj, func.name)
    ):
        return Result(UNKNOWN)
    if (
        isinstance(func, BoundMethod)
        and nn is not None
        and isinstance(func.receiver.obj, nn.Module)
    ) and func.name in FLAG_METHODS:
        if func.name != "zero_grad":
            chk.modes_unknown[0] = True
        return Result(func.receiver if func.name != "zero_grad" else Val(None))
    if isinstance(func, Val) and isinstance(func.obj, type) and type(func.obj).__module__ != "abc":
        loss = loaded("torch.nn.modules.loss")
        cls = func.obj
        if (
            loss is not None
            and cls.__module__.startswith("torch.nn")
            and (
                issubclass(cls, loss._Loss)
                or cls.__name__ in PARAMETER_FREE
                or cls.__name__ in DETERMINISTIC_INIT
            )
        ):
            return _construct(site, cls)
        if nn is not None and cls.__module__.startswith("torch.nn") and issubclass(cls, nn.Module):
            if cls.__name__ in SAFE_LAYERS or cls.__name__ in RECURRENT:
                return _construct_drawing(site, cls)
            if cls.__name__ in CONTAINERS:
                return _construct_container(site, cls)
    if not isinstance(func, Val) or not _library_module(func.obj):
        return None
    if func.live:
        return Result(UNKNOWN)  # a module without a meta shadow is never run
    module = func.obj
    if site.has_star or site.kwargs or not all(isinstance(a, Val) for a in site.args):
        return Result(UNKNOWN)
    tensors: List[Val] = list(site.args)
    if type(module).__name__ in RECURRENT and len(tensors) == 2:
        return _recurrent_call(chk, site, module, tensors)
    wrong = _not_a_tensor(module, tensors)
    if isinstance(wrong, Raise):
        wrong.node = site.node
    if wrong is not None:
        return wrong
    if any(v.fake or v.sampled or not is_tensor(v.obj) for v in tensors):
        return Result(UNKNOWN)
    from ..quiet import quiet

    standin = func.origin == "standin" or any(v.origin == "standin" for v in tensors)
    meta = shadows.on_meta(module, [v.obj for v in tensors])
    if meta:
        module = shadows.as_meta(module)
    if _is_loss(module) and len(tensors) == 2:
        try:
            with quiet():
                result = type(module).forward(
                    module, _shadow(tensors[0].obj, meta), _shadow(tensors[1].obj, meta)
                )
        except Exception as exc:
            if shadows.shadow_limit(exc) or (standin and not _structural(exc)):
                return Result(UNKNOWN)
            return _raise(site, exc, module, tensors)
        return Result(Val(result, origin="standin" if standin else ""))
    if len(tensors) != 1 or not _runnable(module):
        return Result(UNKNOWN)
    tensor = tensors[0].obj
    recurrent = type(module).__name__ in RECURRENT
    work = tensor.numel() * int(getattr(module, "hidden_size", 1))
    if not meta and recurrent and work > MAX_RECURRENT_WORK:
        meta, module = True, shadows.as_meta(module)
    if tensor.numel() > MAX_INPUT_ELEMENTS and not meta:
        return Result(UNKNOWN)  # too costly to run here; shapes downstream are not judged
    modes_unknown = chk.modes_unknown[0] and _mode_dependent(module)
    try:
        with quiet():
            result, exact = _run(module, _shadow(tensor, meta))
    except Exception as exc:
        if shadows.shadow_limit(exc) or (standin and not _structural(exc)):
            return Result(UNKNOWN)
        if modes_unknown and "when training" in str(exc):
            return Result(UNKNOWN)
        return _raise(site, exc, module, tensors)
    exact = exact and not modes_unknown
    return Result(Val(result, origin="standin" if standin or not exact else ""))


def _recurrent_call(chk: Any, site: CallSite, module: Any, given: List[Val]) -> Any:
    """`rnn(x, h0)` / `lstm(x, (h0, c0))`: the layer run on copies of its input and state."""
    from ..quiet import quiet

    data, state = given
    states = state.obj if type(state.obj) is tuple else (state.obj,)
    if (
        any(v.fake or v.sampled or v.live for v in given)
        or not is_tensor(data.obj)
        or not all(is_tensor(t) for t in states)
        or not _runnable(module)
    ):
        return Result(UNKNOWN)
    standin = site.func.origin == "standin" or any(v.origin == "standin" for v in given)
    tensors = [data.obj, *states]
    meta = shadows.on_meta(module, tensors) or (
        data.obj.numel() * int(getattr(module, "hidden_size", 1)) > MAX_RECURRENT_WORK
    )
    if meta:
        module = shadows.as_meta(module)
    copies = tuple(_shadow(t, meta) for t in states)
    try:
        with quiet():
            result, exact = _run(
                module, _shadow(data.obj, meta), copies if type(state.obj) is tuple else copies[0]
            )
    except Exception as exc:
        if shadows.shadow_limit(exc) or (standin and not _structural(exc)):
            return Result(UNKNOWN)
        return _raise(site, exc, module, [data] + [Val(t) for t in states])
    return Result(Val(result, origin="standin" if standin or not exact else ""))


def _library_method(module: Any, name: str) -> bool:
    """Is `module.name` nn.Module's own method (not overridden by the user's class)?"""
    import inspect

    nn = loaded("torch.nn")
    return nn is not None and inspect.getattr_static(type(module), name, None) is getattr(
        nn.Module, name, object()
    )


def _mode_dependent(module: Any) -> bool:
    """Does the module (or a layer in it) compute differently in training mode?"""
    parts = [module, *module.modules()] if type(module).__name__ == "Sequential" else [module]
    return any(
        type(part).__name__.startswith(("BatchNorm", "InstanceNorm"))
        or type(part).__name__ in DROPOUTS
        for part in parts
    )


def _not_a_tensor(module: Any, given: List[Val]) -> Any:
    """A NumPy array, frame or list handed to a library layer or loss: torch's TypeError."""
    from ..values import is_dataframe, is_ndarray, is_plain_data, is_series

    data = [
        v
        for v in given
        if not is_tensor(v.obj)
        and (is_ndarray(v.obj) or is_dataframe(v.obj) or is_series(v.obj) or is_plain_data(v.obj))
    ]
    if (
        not data
        or not (_runnable(module) or _is_loss(module))
        or not all(is_tensor(v.obj) or v in data for v in given)
    ):
        return None
    from ..quiet import quiet

    try:
        with quiet():
            if _is_loss(module) and len(given) == 2:
                type(module).forward(module, given[0].obj, given[1].obj)
            elif len(given) == 1:
                _run(module, given[0].obj)
            else:
                return None
    except TypeError as exc:
        return Raise(
            "torch-type-error",
            "TypeError",
            str(exc).split("\n")[0],
            facts=["%s given a %s" % (type(module).__name__, type(data[0].obj).__name__)],
            fix="convert it first: torch.tensor(x, dtype=torch.float32) "
            "(or torch.from_numpy(x).float())",
        )
    except Exception:
        return Result(UNKNOWN)
    return Result(UNKNOWN)


_STRUCTURAL_WORDS = (
    "size",
    "shape",
    "dimension",
    "dtype",
    "mat1",
    "channels",
    "Expected",
    "expected",
    "same number",
)


def _structural(exc: BaseException) -> bool:
    """Errors about shapes and dtypes: the same for every batch of a tensor dataset."""
    text = str(exc)
    return any(word in text for word in _STRUCTURAL_WORDS)


def _raise(site: CallSite, exc: BaseException, module: Any, tensors: List[Val]) -> Raise:
    facts = ["%s: %s" % (type(module).__name__, _module_text(module))]
    for index, value in enumerate(tensors):
        t = value.obj
        facts.append(
            "argument %d: tensor of shape %s, dtype %s"
            % (index, tuple(t.shape), str(t.dtype).replace("torch.", ""))
        )
    name = type(exc).__name__
    message = str(exc).split("\n")[0]
    code = "torch-shape-mismatch"
    if (
        "dtype" in message
        or "Expected floating point type" in message
        or "Long" in message
        or "Float" in message
    ):
        code = "torch-dtype-mismatch"
    if _is_loss(module):
        code = "torch-loss-input"
    return Raise(code, name, message, facts=facts, node=site.node)


def _module_text(module: Any) -> str:
    try:
        if type(module).__name__ == "Sequential":
            return ", ".join(
                "%s(%s)" % (type(child).__name__, child.extra_repr()) for child in module.children()
            )
        return module.extra_repr() or type(module).__name__
    except Exception:
        return type(module).__name__


def set_item(chk: Any, target: ast.Subscript, base: Any, key: Any, value: Any) -> Any:
    """`tensor[key] = value` on the walk's own tensor (a shadow or a value the walk built,
    never the user's), in place as the run does: a bad index or a value that does not
    broadcast raises here as it will for real. Not for tensors that require grad (a copy
    cannot tell a leaf from an intermediate result) or for stand-ins."""
    torch = loaded("torch")
    if torch is None or not isinstance(base, Val) or not is_tensor(base.obj):
        return None
    if base.live or base.sampled or base.fake or base.origin == "standin":
        return None
    if not isinstance(key, Val) or not isinstance(value, Val) or value.fake or value.live:
        return None
    tensor, index, item = base.obj, key.obj, value.obj
    if tensor.requires_grad or tensor.numel() > MAX_INPUT_ELEMENTS:
        return None
    if not (_plain_index(torch, index) and _plain_item(torch, item)):
        return None
    from ..quiet import quiet

    try:
        with quiet():
            tensor[index] = item
    except (IndexError, RuntimeError, TypeError, ValueError) as exc:
        if shadows.shadow_limit(exc):
            return None
        name = type(exc).__name__
        return Raise(
            "torch-index-error" if name == "IndexError" else "torch-shape-mismatch",
            name,
            str(exc).split("\n")[0],
            facts=[
                "the tensor has shape %s, dtype %s"
                % (tuple(tensor.shape), str(tensor.dtype).replace("torch.", ""))
            ],
            node=target,
        )
    except Exception:
        return None
    return Result(base)


def _plain_index(torch: Any, index: Any) -> bool:
    kind = type(index)
    if kind is int or kind is slice or index is None or index is Ellipsis:
        return True
    if kind is tuple:
        return all(_plain_index(torch, part) for part in index)
    return (
        is_tensor(index)
        and not index.requires_grad
        and (index.dtype == torch.bool or not index.dtype.is_floating_point)
    )


def _plain_item(torch: Any, item: Any) -> bool:
    kind = type(item)
    if kind is int or kind is float or kind is bool:
        return True
    return is_tensor(item) and not item.requires_grad and not item.is_meta
