"""Wire formats: msgspec Structs, the single source of truth for `protocol/*.schema.json`."""

from crane_server.protocol.findings import CheckResult, Evidence, Finding, Replacement
from crane_server.protocol.snapshot import (
    KernelSummary,
    NameInventory,
    RuntimeSnapshot,
    VariableSummary,
)
from crane_server.protocol.verdict import Diagnosis, Verdict

__all__ = [
    "CheckResult",
    "Diagnosis",
    "Evidence",
    "Finding",
    "KernelSummary",
    "NameInventory",
    "Replacement",
    "RuntimeSnapshot",
    "VariableSummary",
    "Verdict",
]
