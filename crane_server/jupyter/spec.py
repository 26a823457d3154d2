"""The `jupyter_lsp_spec_v1` entry point: how jupyter-lsp starts crane-server."""

from __future__ import annotations

import sys
from typing import Any

SPEC_KEY = "crane-server"
SPEC_VERSION = 2  # the jupyter-lsp spec schema version this implements

SETTINGS_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "crane-server settings",
    "description": "Sent as workspace/didChangeConfiguration settings.crane (dotted keys nest).",
    "type": "object",
    "properties": {
        "crane.llm.model": {
            "type": "string",
            "default": "",
            "description": "LLM model for the second tier (empty: CRANE_LLM_MODEL or the default).",
        },
        "crane.llm.trigger": {
            "type": "string",
            "enum": ["command", "auto"],
            "default": "command",
            "description": "Ask the LLM only on the crane.check command, or automatically.",
        },
        "crane.llm.privacy": {
            "type": "string",
            "enum": ["full", "schema", "types"],
            "default": "full",
            "description": "What the LLM may see: values, schema only, or types only.",
        },
        "crane.debounce_ms": {
            "type": "integer",
            "minimum": 0,
            "default": 300,
            "description": "Delay after an edit before the rules run again (milliseconds).",
        },
        "crane.connection_file": {
            "type": ["string", "null"],
            "default": None,
            "description": "Bind every document to this kernel connection file.",
        },
    },
}


def crane_spec(manager: Any = None) -> dict[str, dict[str, Any]]:
    """Return crane's language server spec, keyed by its name, for jupyter-lsp."""
    return {
        SPEC_KEY: {
            "version": SPEC_VERSION,
            "argv": [sys.executable, "-m", "crane_server", "--stdio"],
            "languages": ["python"],
            "mime_types": ["text/python", "text/x-ipython"],
            "display_name": "crane-server (crash warnings from the live kernel)",
            "requires_documents_on_disk": False,
            "config_schema": SETTINGS_SCHEMA,
            "install": {"pip": "python -m pip install <a checkout of the crane-server repository>"},
            "troubleshoot": (
                "Run `python -m crane_server --version` in the Jupyter server's environment; "
                "enable the kernel map with `jupyter server extension enable crane_server.jupyter`."
            ),
        }
    }
