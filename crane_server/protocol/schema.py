"""Generate the JSON Schemas in `protocol/` from the msgspec Structs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from crane_server.protocol import CheckResult, NameInventory, RuntimeSnapshot, Verdict
from crane_server.protocol.check import AheadReport
from crane_server.protocol.dry_run import DryRun
from crane_server.protocol.eval import ResultRow
from crane_server.protocol.handoff import Handoff
from crane_server.protocol.jupyter_sessions import SessionMap
from crane_server.protocol.kernels import ConnectionFile, KernelRecord
from crane_server.protocol.llm import LlmOutcome
from crane_server.protocol.lsp import AttachKernelArgs, CellArgs, KernelStatus, ServerSettings

SCHEMAS: dict[str, Any] = {
    "runtime-snapshot": RuntimeSnapshot,
    "name-inventory": NameInventory,
    "check-result": CheckResult,
    "check-ahead-report": AheadReport,
    "llm-verdict": Verdict,
    "llm-outcome": LlmOutcome,
    "eval-result-row": ResultRow,
    "lsp-kernel-status": KernelStatus,
    "lsp-attach-kernel": AttachKernelArgs,
    "lsp-cell-args": CellArgs,
    "lsp-settings": ServerSettings,
    "jupyter-session-map": SessionMap,
    "kernel-records": list[KernelRecord],
    "kernel-connection-file": ConnectionFile,
    "helper-handoff": Handoff,
    "dry-run": DryRun,
}

PROTOCOL_DIR = Path(__file__).resolve().parents[2] / "protocol"


def render_schemas() -> dict[str, str]:
    """Return {file name: schema text} for every wire format."""
    rendered = {}
    for name, struct_type in SCHEMAS.items():
        schema = msgspec.json.schema(struct_type)
        rendered[f"{name}.schema.json"] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return rendered


def write_schemas(directory: Path = PROTOCOL_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, text in render_schemas().items():
        path = directory / file_name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_schemas():
        print(path)
