"""The interpreter's genuine builtins, bound when the probe is installed.

Shipped first: when this module runs, the installer has created every probe module but run
none of them, so each is given `BUILTINS`, a copy of the builtins taken here, as its own
`__builtins__` before its code runs. A user's later `builtins.isinstance = wrapper` changes the
kernel's builtins, never the probe's.

Library and standard library code the probe evaluates (pandas, ast, json) still looks up the
kernel's builtins, so a check is refused while any checked builtin is not the interpreter's own
(`replaced()`); and when the copy was taken after the user replaced some, the probe's own copy is
not genuine either, until the user puts the originals back (`replaced()` heals it then).

The functions below use no builtin name at all (only names bound from literals): they decide
whether the builtins can be trusted, so they must not call them.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List

_MISSING = object()
_TYPE: Any = ().__class__.__class__  # `type`, from a literal
_MODULE: Any = sys.__class__
_BUILTIN_FUNCTION: Any = ().count.__class__  # builtin_function_or_method
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement
_NOT_IMPLEMENTED: Any = (0).__add__("")  # type: ignore[operator]

# The kernel's builtins, as the installer ran this module with them (a dict, or the module).
_GIVEN: Any = __builtins__  # type: ignore[used-before-def]
_SOURCE: Dict[str, Any] = _GIVEN.__dict__ if _GIVEN.__class__ is _MODULE else _GIVEN
BUILTINS: Dict[str, Any] = {**_SOURCE}
# This module's functions, made below, look builtins up in the copy too.
__builtins__ = BUILTINS  # type: ignore[assignment]

# The C functions and classes of `builtins` in CPython 3.9 to 3.13 (a name a version lacks is
# skipped). Left out: `input` (ipykernel replaces it while it runs any request) and the site
# helpers (help, exit, quit, copyright, credits, license), none of which the probe calls.
CHECKED = """
    __build_class__ __import__ abs aiter all anext any ascii bin breakpoint callable chr compile
    delattr dir divmod eval exec format getattr globals hasattr hash hex id isinstance issubclass
    iter len locals max min next oct open ord pow print repr round setattr sorted sum vars
    bool bytearray bytes classmethod complex dict enumerate filter float frozenset int list map
    memoryview object property range reversed set slice staticmethod str super tuple type zip
    ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup
    BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError
    ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError
    DeprecationWarning EOFError EncodingWarning EnvironmentError Exception ExceptionGroup
    FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError
    ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError
    KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError
    NotADirectoryError NotImplementedError OSError OverflowError PendingDeprecationWarning
    PermissionError ProcessLookupError PythonFinalizationError RecursionError ReferenceError
    ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError
    SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError
    UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning
    UserWarning ValueError Warning ZeroDivisionError Ellipsis NotImplemented
""".split()

# Other names of a class
_ALIASES = {"EnvironmentError": "OSError", "IOError": "OSError"}
# Classes of `builtins` the interpreter itself creates as heap types.
_HEAP_BUILTINS = ("BaseExceptionGroup", "ExceptionGroup", "EncodingWarning")

# name -> the value found genuine (a later request compares identities only)
_VERIFIED: Dict[str, Any] = {}


def is_genuine(name: str, value: Any) -> bool:
    """Is `value` the interpreter's own `builtins.<name>` (read without calling any builtin)?"""
    if name == "Ellipsis":
        return value is ...
    if name == "NotImplemented":
        return value is _NOT_IMPLEMENTED
    kind = _TYPE(value)
    if kind is _BUILTIN_FUNCTION:
        owner = value.__self__
        if value.__name__ != name or _TYPE(owner) is not _MODULE:
            return False
        if name == "open":  # io.open, of the _io module (which io renames "io")
            return owner.__name__ == "_io" or owner.__name__ == "io"
        return owner.__dict__ is _SOURCE
    if kind is not _TYPE:
        return False  # a Python function, a callable object, a class with its own metaclass
    if value.__name__ != _ALIASES.get(name, name) or value.__module__ != "builtins":
        return False
    return not (value.__flags__ & _HEAPTYPE) or name in _HEAP_BUILTINS


def replaced() -> List[str]:
    """The checked builtins that are not the interpreter's own, in the kernel or the probe.

    Empty when a check may run. A probe copy taken after the user replaced a builtin is healed
    here from the kernel's builtins once the user has put the original back.
    """
    found: List[str] = []
    for name in CHECKED:
        live = _SOURCE.get(name, _MISSING)
        if live is _MISSING:
            continue  # not in this version (or deleted: a NameError, never user code)
        if _VERIFIED.get(name, _MISSING) is live and BUILTINS.get(name, _MISSING) is live:
            continue
        if not is_genuine(name, live):
            found.append(name)
            continue
        _VERIFIED[name] = live
        mine = BUILTINS.get(name, _MISSING)
        if mine is not live and (mine is _MISSING or not is_genuine(name, mine)):
            BUILTINS[name] = live
    found.sort()
    return found


def _seal() -> None:
    """Give every probe module the installer created but did not run yet its own builtins."""
    package = __name__.rpartition(".")[0]
    if not package:
        return
    prefix = package + "."
    for name, module in [*sys.modules.items()]:
        if not name.startswith(prefix) or name == __name__:
            continue
        namespace = module.__dict__
        if "__builtins__" not in namespace and "__file__" in namespace:
            namespace["__builtins__"] = BUILTINS


_seal()
