"""The runtime snapshot: what the kernel-side probe reports about named objects.

Categories follow the CRANE-LLM paper: S structural (shape, length, columns), V value
semantics (ranges, NaN presence, unique counts, examples), R representation/type (type,
dtype, device, fitted state). The probe fills only the categories it is asked for.
"""

from __future__ import annotations

from typing import Any

import msgspec


class VariableSummary(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Summary of one object. Fields not applicable to its kind stay at their defaults."""

    name: str
    type: str
    kind: str = "object"
    # S: structure
    shape: list[int | None] | None = None
    length: int | None = None
    columns: list[str] | None = None
    columns_total: int | None = None
    index: dict[str, Any] | None = None
    # R: representation
    dtype: str | None = None
    dtypes: dict[str, str] | None = None
    device: str | None = None
    requires_grad: bool | None = None
    fitted: bool | None = None
    signature: str | None = None
    module: str | None = None
    # V: values
    stats: dict[str, Any] | None = None
    column_stats: dict[str, dict[str, Any]] | None = None
    examples: list[str] | None = None
    # kind-specific details (estimator params, layer shapes, element_spec, ...)
    details: dict[str, Any] | None = None
    truncated: bool = False
    error: str | None = None


class KernelSummary(msgspec.Struct, kw_only=True, omit_defaults=True):
    python: str = ""
    implementation: str = ""
    pid: int | None = None
    libraries: dict[str, str] = msgspec.field(default_factory=dict)


class RuntimeSnapshot(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The probe's answer to `summarise(names)`."""

    variables: dict[str, VariableSummary] = msgspec.field(default_factory=dict)
    missing: list[str] = msgspec.field(default_factory=list)
    kernel: KernelSummary = msgspec.field(default_factory=KernelSummary)
    categories: list[str] = msgspec.field(default_factory=lambda: ["S", "V", "R"])
    execution_count: int | None = None
    elapsed_ms: float | None = None


class NameInventory(msgspec.Struct, kw_only=True):
    """Names defined in the user namespace and their bare type names.

    `source`: "probe" (listed now), "listing-before-run" (listed before the running cell
    started, while busy) or "unavailable" (busy, no listing stands: names are not judged).
    """

    names: dict[str, str] = msgspec.field(default_factory=dict)
    source: str = "unavailable"
