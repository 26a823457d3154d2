"""While a probe operation runs in the kernel, nothing new gets imported.

Library code the checker evaluates may import lazily (`Series.interpolate(method="cubic")`
imports scipy.interpolate, which loads numpy.fft's extension). A module imported then cannot
be taken back: numpy's extensions refuse a second initialisation, so unloading them made the
user's own run of that cell fail with "cannot load module more than once per process". So the
import is refused instead: for the probe's own thread, a module that exists gets a loader that
raises `ImportBlocked`, and everything the walk computed after a refusal is discarded (library
code may have fallen back to another path). `importlib.util.find_spec` still answers truly
(the spec is found; only executing it is refused).

Allowed: the probe's own modules, the standard library (unloaded again after the operation),
and imports made while a framework that registers global state is on the stack (torch's
meta-device decompositions import sympy once; they stay, see entry.py).
"""

from __future__ import annotations

import sys
import threading
from typing import Any, List, Optional

# Frameworks whose own lazy imports are allowed (and kept).
FRAMEWORKS = frozenset({"torch", "tensorflow", "keras", "jax", "jaxlib"})
# How many frames up an import is traced to find a framework that made it.
MAX_FRAMES = 200
# On Python < 3.10 (no sys.stdlib_module_names): the standard library the probe may touch.
STDLIB_FALLBACK = frozenset(
    """abc ast bisect collections copy copyreg csv dataclasses datetime decimal difflib enum
    fnmatch fractions functools gc hashlib heapq inspect io itertools json keyword linecache
    locale math numbers operator os pathlib pickle platform posixpath pprint random re reprlib
    shlex stat statistics string struct textwrap threading time token tokenize traceback types
    typing unicodedata uuid warnings weakref zlib""".split()
)

_refused: List[int] = [0]
# The modules refused during the current probe request (a helper may import them instead).
_refused_names: List[str] = []


class ImportBlocked(ImportError):
    """An import refused while a probe operation runs (never a prediction about the cell)."""


def refused_count() -> int:
    """Imports refused so far in this process (a walk compares it before and after)."""
    return _refused[0]


def refused_names() -> List[str]:
    """The modules refused during the current probe request, in order."""
    return list(dict.fromkeys(_refused_names))


def is_standard_library(name: str) -> bool:
    root = name.split(".", 1)[0]
    names = getattr(sys, "stdlib_module_names", STDLIB_FALLBACK)
    return root in names or root.lstrip("_") in names


class _RefusingLoader:
    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        _refused[0] += 1
        _refused_names.append(module.__name__)
        raise ImportBlocked("crane: %s is not imported during a check" % module.__name__)


class ImportGuard:
    """A meta path finder, first in line for the duration of one probe operation."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()
        self.own_root = __name__.split(".", 1)[0]

    def __enter__(self) -> "ImportGuard":
        del _refused_names[:]
        sys.meta_path.insert(0, self)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Optional[Any]:
        if (
            threading.get_ident() != self.thread
            or name.split(".", 1)[0] == self.own_root
            or is_standard_library(name)
            or _framework_on_stack()
        ):
            return None
        found = _spec_from_others(self, name, path, target)
        if found is None:
            return None  # no such module: the usual ModuleNotFoundError
        from importlib.machinery import ModuleSpec

        loader: Any = _RefusingLoader()
        refused = ModuleSpec(
            name,
            loader,
            origin=found.origin,
            is_package=found.submodule_search_locations is not None,
        )
        if found.submodule_search_locations is not None:
            refused.submodule_search_locations = list(found.submodule_search_locations)
        return refused


def _spec_from_others(guard: ImportGuard, name: str, path: Any, target: Any) -> Optional[Any]:
    for finder in list(sys.meta_path):
        if finder is guard:
            continue
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        spec = find(name, path, target)
        if spec is not None:
            return spec
    return None


def _framework_on_stack() -> bool:
    frame: Any = sys._getframe(2)
    for _ in range(MAX_FRAMES):
        if frame is None:
            return False
        module = frame.f_globals.get("__name__")
        if type(module) is str and module.split(".", 1)[0] in FRAMEWORKS:
            return True
        frame = frame.f_back
    return False
