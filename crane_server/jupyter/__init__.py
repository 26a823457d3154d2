"""Jupyter integration: the jupyter-lsp spec and a server extension mapping notebooks to kernels.

Enable the server extension with
`jupyter server extension enable crane_server.jupyter` (pip installs enable it already).
jupyter_server is imported only when the extension loads, so `crane_server.jupyter.spec`
stays importable without it.
"""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    """Tell jupyter_server where the extension lives."""
    return [{"module": "crane_server.jupyter"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from crane_server.jupyter.extension import load_extension

    load_extension(serverapp)


# Older jupyter_server releases look for this name.
load_jupyter_server_extension = _load_jupyter_server_extension
