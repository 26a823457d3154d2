"""What a cell's writes will meet on disk: a file written into a folder that does not exist.

Shared by the rules of every library that writes files (pandas, numpy, torch, matplotlib,
joblib and `open`); each writer raises its own exception for it.
"""

from __future__ import annotations

from typing import Any, Optional

from .outcomes import CallSite, Raise
from .values import Val


def missing_folder(path: Any, site: CallSite, exception: str) -> Optional[Raise]:
    """A write to a file whose folder does not exist: the writer's error (`exception`: the
    class it raises; pandas and torch word it their own way). Only for a local path given as
    text or a pathlib path; the caller makes sure nothing earlier in the cell made folders."""
    import os
    import pathlib

    if not isinstance(path, Val) or path.fake:
        return None
    obj = path.obj
    if type(obj) is str:
        name = obj
    elif type(obj) is pathlib.PosixPath or type(obj) is pathlib.WindowsPath:
        name = str(obj)
    else:
        return None
    if not name or "://" in name or name.startswith("~"):
        return None
    folder = os.path.dirname(name)
    if not folder or os.path.isdir(folder):
        return None
    if exception == "OSError":
        message = "Cannot save file into a non-existent directory: %r" % folder
    elif exception == "RuntimeError":
        message = "Parent directory %s does not exist." % folder
    else:
        message = "[Errno 2] No such file or directory: %r" % name
    return Raise(
        "python-missing-folder",
        exception,
        message,
        facts=["the folder %r does not exist (working directory: %s)" % (folder, os.getcwd())],
        fix="create it first: os.makedirs(%r, exist_ok=True)" % folder,
        node=site.node,
    )
