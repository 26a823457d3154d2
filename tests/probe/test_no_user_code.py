"""The probe never runs user code: every dunder, property and hook below records its calls."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import torch
from sklearn.base import BaseEstimator
from torch.utils.data import DataLoader, Dataset

from crane_server.probe.snapshot.summarise import summarise_request

CALLS: list[str] = []
ARMED = [False]  # hooks record and raise only while the probe runs

HOOKS = (
    "__repr__",
    "__str__",
    "__format__",
    "__len__",
    "__iter__",
    "__next__",
    "__getitem__",
    "__contains__",
    "__bool__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__gt__",
    "__hash__",
    "__int__",
    "__float__",
    "__index__",
    "__call__",
    "__dir__",
    "__sizeof__",
    "__array__",
    "__getattr__",
)


def _recorder(name: str) -> Any:
    def hook(self: Any, *args: Any, **kwargs: Any) -> Any:
        if ARMED[0]:
            CALLS.append(f"{type(self).__name__}.{name}")
            raise RuntimeError(f"user code called: {name}")
        return _default(self, name.split(".")[-1].split()[0], *args, **kwargs)

    return hook


def _default(obj: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """What the hook would do without the override (used while building the fixtures)."""
    if name == "__class__":
        return type(obj)
    for klass in type(obj).__mro__[1:]:
        if name in vars(klass):
            return vars(klass)[name](obj, *args, **kwargs)
    raise AttributeError(name)


def _hostile_namespace(name: str, bases: tuple[type, ...] = (object,)) -> dict[str, Any]:
    namespace: dict[str, Any] = {hook: _recorder(hook) for hook in HOOKS}
    namespace["__getattribute__"] = _getattribute
    namespace["value"] = property(_recorder("value property"))
    namespace["shape"] = property(_recorder("shape property"))
    namespace["dtype"] = property(_recorder("dtype property"))
    namespace["__class__"] = property(_recorder("__class__ property"))
    return namespace


def _getattribute(self: Any, name: str) -> Any:
    if ARMED[0]:
        CALLS.append(f"__getattribute__({name})")
    return object.__getattribute__(self, name)


class Meta(type):
    """A metaclass whose comparisons, hashing and attribute hooks record calls."""

    __eq__ = _recorder("Meta.__eq__")
    __hash__ = _recorder("Meta.__hash__")  # type: ignore[assignment]
    __repr__ = _recorder("Meta.__repr__")
    __getattr__ = _recorder("Meta.__getattr__")
    __call__ = _recorder("Meta.__call__")
    __instancecheck__ = _recorder("Meta.__instancecheck__")
    __subclasscheck__ = _recorder("Meta.__subclasscheck__")


Hostile = Meta("Hostile", (object,), _hostile_namespace("Hostile"))


def make_hostile() -> Any:
    """An instance, made without running the metaclass's __call__."""
    return object.__new__(Hostile)


HostileList = type("HostileList", (list,), _hostile_namespace("HostileList"))
HostileDict = type("HostileDict", (dict,), _hostile_namespace("HostileDict"))
HostileStr = type("HostileStr", (str,), _hostile_namespace("HostileStr"))
HostileInt = type("HostileInt", (int,), _hostile_namespace("HostileInt"))


class HostileModule(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def __getattr__(self, name: str) -> Any:
        CALLS.append(f"HostileModule.__getattr__({name})")
        raise AttributeError(name)

    def __repr__(self) -> str:
        CALLS.append("HostileModule.__repr__")
        return "x"

    @property
    def device(self) -> Any:
        CALLS.append("HostileModule.device")
        raise RuntimeError


class HostileDataset(Dataset):  # type: ignore[type-arg]
    def __len__(self) -> int:
        CALLS.append("HostileDataset.__len__")
        return 10

    def __getitem__(self, index: int) -> Any:
        CALLS.append("HostileDataset.__getitem__")
        return index


class HostileEstimator(BaseEstimator):
    def __init__(self, alpha: Any = None) -> None:
        self.alpha = alpha

    def __sklearn_is_fitted__(self) -> bool:
        CALLS.append("HostileEstimator.__sklearn_is_fitted__")
        return True

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        CALLS.append("HostileEstimator.get_params")
        return {}

    @property
    def coef_(self) -> Any:
        CALLS.append("HostileEstimator.coef_")
        raise AttributeError


def _generator() -> Any:
    CALLS.append("generator advanced")  # recorded armed or not
    yield 1


def _function_with_hostile_default(x: Any = make_hostile()) -> None:  # noqa: B008
    pass


def _object_array(*items: Any) -> Any:
    array = np.empty(len(items), dtype=object)
    for position, item in enumerate(items):
        array[position] = item
    return array


def summarise_armed(names: list[str], namespace: dict[str, Any]) -> dict[str, Any]:
    CALLS.clear()
    ARMED[0] = True
    try:
        return summarise_request({"names": names}, namespace=namespace)
    finally:
        ARMED[0] = False


def _namespace() -> dict[str, Any]:
    hostile = make_hostile()
    objects = _object_array(make_hostile(), make_hostile(), None)
    frame = pd.DataFrame({"objects": objects, "n": [1, 2, 3]})
    labels = _object_array(make_hostile(), make_hostile())
    hostile_labels = pd.DataFrame(
        np.zeros((2, 2)), columns=pd.Index(labels), index=pd.Index(labels)
    )
    return {
        "hostile": hostile,
        "hostile_class": Hostile,
        "hostile_list": HostileList([hostile, 1]),
        "hostile_dict": HostileDict({"k": hostile, make_hostile(): 1}),
        "hostile_str": HostileStr("text"),
        "hostile_int": HostileInt(5),
        "list_of_hostiles": [hostile, hostile],
        "object_array": _object_array(hostile, make_hostile(), 1),
        "frame_with_objects": frame,
        "series_of_objects": frame["objects"],
        "frame_with_hostile_labels": hostile_labels,
        "module": HostileModule(),
        "loader": DataLoader(HostileDataset(), batch_size=2),
        "dataset": HostileDataset(),
        "estimator": HostileEstimator(alpha=hostile),
        "generator": _generator(),
        "iterator": iter(HostileList([1, 2])),
        "function": _function_with_hostile_default,
    }


def test_no_user_defined_hook_is_called() -> None:
    namespace = _namespace()
    snapshot = summarise_armed(sorted(namespace), namespace)
    assert CALLS == []
    variables = snapshot["variables"]
    assert set(variables) == set(namespace)
    assert not [name for name, summary in variables.items() if "error" in summary]
    assert variables["hostile"]["type"].endswith("Hostile")
    assert variables["hostile_list"]["length"] == 2
    assert variables["hostile_dict"]["length"] == 2
    assert variables["hostile_str"]["stats"] == {"value": "text"}
    assert variables["hostile_int"]["stats"] == {"value": 5}
    assert any(name.endswith("Hostile") for name in variables["object_array"]["stats"]["types"])
    assert "unique" not in variables["frame_with_objects"]["column_stats"]["objects"]
    assert variables["module"]["details"]["first_layer"]["in_features"] == 3
    assert variables["loader"]["details"]["batch_size"] == 2
    assert "length" not in variables["loader"]  # len(dataset) would be user code
    assert variables["estimator"]["fitted"] is None  # decided by a user hook: unknown
    assert variables["function"]["signature"].endswith("<" + __name__ + ".Hostile>)")


def test_generator_is_not_advanced() -> None:
    generator = _generator()
    summarise_armed(["g"], {"g": generator})
    assert CALLS == []
    assert next(generator) == 1  # still at its start
    assert CALLS == ["generator advanced"]


def test_namespace_is_not_modified() -> None:
    namespace = _namespace()
    before = dict(namespace)
    summarise_armed([*sorted(namespace), "missing"], namespace)
    assert namespace.keys() == before.keys()
    assert all(namespace[key] is before[key] for key in before)
