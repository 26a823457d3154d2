"""crane-server: warns before a notebook cell runs that it will crash, and why."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "load_ipython_extension", "set_api_key"]


def set_api_key(
    api_key: str | None = None, *, base_url: str | None = None, model: str | None = None
) -> None:
    """Write the LLM settings to ~/.crane_llm/config.json (mode 0600)."""
    from crane_server.settings import write_config

    write_config(api_key=api_key, base_url=base_url, model=model)


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext crane_server`: register the `%%crane` cell magic."""
    from crane_server.jupyter.magic import register

    register(ipython)
