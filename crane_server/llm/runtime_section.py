"""The [Current relevant runtime information] section: compact (default) and paper style.

Compact: only the names the target cell uses, full detail only for the columns it touches
(the others by name, grouped by dtype, capped), variables with identical summaries merged,
and the rule checker's findings as facts. Paper style: every field of every summarised
variable, one repr-like dump per variable, as in the CRANE-LLM artefact prompts.
Categories (S, V, R) can be dropped for ablations; privacy "schema" drops values and
statistics, "types" keeps only type names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from crane_server.llm.cell_uses import BUILTIN_NAMES, CellUses, cell_uses
from crane_server.protocol.findings import Finding
from crane_server.protocol.snapshot import RuntimeSnapshot, VariableSummary

CATEGORY_FIELDS = {
    "S": ("shape", "length", "columns", "columns_total", "index"),
    "R": ("dtype", "dtypes", "device", "requires_grad", "fitted", "signature", "details"),
    "V": ("stats", "column_stats", "examples"),
}
OTHER_COLUMNS_CAP = 25
VALUE_LIMIT = 60
PARAMS_CAP = 16


def visible_fields(categories: Iterable[str], privacy: str) -> set[str]:
    """Summary fields that may appear for these categories under this privacy setting."""
    chosen = set(categories)
    if privacy == "schema":
        chosen.discard("V")
    fields = {name for category in chosen for name in CATEGORY_FIELDS.get(category, ())}
    if privacy == "types":
        fields &= {"dtype"}
    return fields


def compact_runtime_section(
    snapshot: RuntimeSnapshot,
    source: str,
    *,
    categories: Sequence[str] = ("S", "V", "R"),
    privacy: str = "full",
    rule_findings: Sequence[Finding] = (),
) -> str:
    """The default runtime section for the target cell `source`."""
    uses = cell_uses(source)
    fields = visible_fields(categories, privacy)
    show_type = "R" in categories
    bodies: dict[str, list[str]] = {}
    for name in uses.names:
        summary = snapshot.variables.get(name)
        if summary is None or name in uses.bound:  # the cell replaces it before reading it
            continue
        body = _render_variable(summary, uses, fields, show_type)
        bodies.setdefault(body, []).append(name)
    lines = [f"{', '.join(names)}: {body}" for body, names in bodies.items()]
    undefined = [
        n
        for n in snapshot.missing
        if n in uses.names and n not in BUILTIN_NAMES and n not in uses.bound
    ]
    if undefined:
        lines.append("not defined in the kernel: " + ", ".join(undefined))
    lines.extend(_rule_lines(rule_findings, privacy))
    return "\n".join(lines)


def _render_variable(
    summary: VariableSummary, uses: CellUses, fields: set[str], show_type: bool
) -> str:
    parts: list[str] = [_short_type(summary.type)] if show_type else []
    if "shape" in fields and summary.shape is not None:
        parts.append("shape " + _shape(summary.shape))
    elif "length" in fields and summary.length is not None:
        parts.append(f"len {summary.length}")
    if "dtype" in fields and summary.dtype:
        parts.append(f"dtype {summary.dtype}")
    if "device" in fields and summary.device:
        parts.append(f"device {summary.device}")
    if "requires_grad" in fields and summary.requires_grad is not None:
        parts.append(f"requires_grad={summary.requires_grad}")
    if "fitted" in fields and summary.fitted is not None:
        parts.append("fitted" if summary.fitted else "NOT fitted")
    if "signature" in fields and summary.signature:
        parts.append(f"signature {summary.signature}")
    if "index" in fields and summary.index:
        parts.append("index " + _index(summary.index, values="stats" in fields))
    if "stats" in fields and summary.stats:
        parts.append(_pairs(summary.stats))
    if "examples" in fields and summary.examples:
        parts.append("e.g. " + ", ".join(_clip(e) for e in summary.examples[:3]))
    if "details" in fields and summary.details:
        parts.append(_pairs(summary.details))
    if summary.error:
        parts.append(f"(summary failed: {_clip(summary.error)})")
    parts = [part for part in parts if part]
    text = ", ".join(parts) if parts else "(no information)"
    column_lines = _column_lines(summary, uses, fields)
    return text + "".join("\n  " + line for line in column_lines)


def _column_lines(summary: VariableSummary, uses: CellUses, fields: set[str]) -> list[str]:
    listed = "columns" in fields and summary.columns is not None
    if listed:
        columns = list(summary.columns or ())
    else:  # without S, only the columns the cell names, as keys of the V/R facts
        columns = list((summary.column_stats or {}) if "column_stats" in fields else {})
        columns += [c for c in (summary.dtypes or {}) if "dtypes" in fields and c not in columns]
    touched_names = set(uses.strings) | set(uses.attributes.get(summary.name, ()))
    touched = [c for c in columns if c in touched_names]
    lines = []
    for column in touched:
        facts = []
        if "dtypes" in fields and summary.dtypes and column in summary.dtypes:
            facts.append(summary.dtypes[column])
        stats = (summary.column_stats or {}).get(column)
        if "column_stats" in fields and stats:
            facts.append(_pairs(stats))
        lines.append(f"column {column!r}: " + (", ".join(facts) or "present"))
    if not listed:
        return lines
    complete = summary.columns_total is None or summary.columns_total <= len(columns)
    absent = [k for k in uses.keys.get(summary.name, ()) if k not in columns]
    if absent and complete:
        lines.append("no column named " + ", ".join(repr(k) for k in absent))
    others = [c for c in columns if c not in touched]
    if others:
        lines.append(_other_columns(others, summary, fields))
    return lines


def _other_columns(others: list[str], summary: VariableSummary, fields: set[str]) -> str:
    total = summary.columns_total or len(summary.columns or ())
    shown = others[:OTHER_COLUMNS_CAP]
    hidden = max(0, total - len(summary.columns or ())) + len(others) - len(shown)
    tail = f" (+{hidden} more)" if hidden else ""
    if "dtypes" in fields and summary.dtypes:
        groups: dict[str, list[str]] = {}
        for column in shown:
            groups.setdefault(summary.dtypes.get(column, "?"), []).append(column)
        grouped = "; ".join(f"{dtype}: {', '.join(names)}" for dtype, names in groups.items())
        return f"other columns: {grouped}{tail}"
    return f"other columns: {', '.join(shown)}{tail}"


def _rule_lines(findings: Sequence[Finding], privacy: str) -> list[str]:
    if not findings:
        return []
    lines = ["certain crashes found by the rule checker:"]
    for finding in findings:
        if privacy == "types":
            lines.append(f"- line {finding.line}: {finding.exception} ({finding.code})")
            continue
        lines.append(f"- line {finding.line}: {finding.exception}: {finding.message}")
        if privacy == "full":
            lines.extend(f"  {fact}" for fact in finding.evidence.facts)
    return lines


def paper_runtime_section(
    snapshot: RuntimeSnapshot,
    *,
    categories: Sequence[str] = ("S", "V", "R"),
    privacy: str = "full",
) -> str:
    """The paper's verbose +RT format: a full dump of every summarised variable."""
    fields = visible_fields(categories, privacy) | {"module"}
    blocks = []
    for name, summary in snapshot.variables.items():
        data: dict[str, Any] = msgspec.to_builtins(summary)
        lines = [f"Variable `{name}`:"]
        if "R" in categories:
            lines.append(f"  type: {summary.type}")
            lines.append(f"  kind: {summary.kind}")
        for key, value in data.items():
            if key in fields and value not in (None, [], {}):
                lines.append(f"  {key}: {value!r}")
        blocks.append("\n".join(lines))
    if snapshot.missing:
        blocks.append("Undefined names: " + repr(list(snapshot.missing)))
    return "\n".join(blocks)


def doc_section(snapshot: RuntimeSnapshot, source: str) -> str:
    """Signatures and first docstring lines of the library callables the cell uses."""
    uses = cell_uses(source)
    wanted = set(uses.calls) | set(uses.names)
    lines = []
    for name, summary in snapshot.variables.items():
        if name not in wanted or not summary.signature:
            continue
        details = summary.details or {}
        doc = str(details.get("doc") or details.get("docstring") or "").strip()
        first = doc.splitlines()[0] if doc else ""
        lines.append(f"{name}{summary.signature}" + (f": {first}" if first else ""))
    return "\n".join(lines)


def _short_type(type_name: str) -> str:
    """`pandas.core.frame.DataFrame` -> `pandas.DataFrame`."""
    head, _, tail = type_name.rpartition(".")
    if not head or head == "builtins":
        return tail
    return f"{head.split('.', 1)[0]}.{tail}"


def _shape(shape: Sequence[int | None]) -> str:
    inner = ", ".join("?" if dim is None else str(dim) for dim in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


# Probe bookkeeping that tells the model nothing about a crash.
_NOISE = frozenset(
    (
        "sample_rows",
        "sample_size",
        "sampled",
        "c_contiguous",
        "size",
        "ndim",
        "qualname",
        "parameters",
        "user_defined",
        "columns_unique",
        "fitted_attributes",
        "fitted_shapes",
    )
)
_QUIET_FALSE = frozenset(("inf", "is_monotonic_increasing"))


def _pairs(mapping: dict[str, Any]) -> str:
    """`key=value` facts, without bookkeeping keys, empty values and at most 3 examples."""
    parts = []
    for key, value in mapping.items():
        if value in (None, [], {}) or key in _NOISE or (key in _QUIET_FALSE and value is False):
            continue
        if key == "examples" and isinstance(value, list):
            parts.append("e.g. " + ", ".join(_clip(item) for item in value[:3]))
            continue
        if key == "params" and isinstance(value, dict):
            given = [f"{k}={_clip(v)}" for k, v in value.items() if v is not None]
            parts.append("params(" + " ".join(given[:PARAMS_CAP]) + ")")
            continue
        parts.append(f"{key}={_clip(value)}")
    return " ".join(parts)


def _index(index: dict[str, Any], *, values: bool) -> str:
    """`RangeIndex`, plus what can make lookups fail: a non-unique or non-default index."""
    kind = str(index.get("type", "Index"))
    if kind == "RangeIndex":
        default = index.get("start") == 0 and index.get("step", 1) == 1
        text = kind if default else f"{kind}({index.get('start')}, {index.get('stop')})"
    else:
        text = " ".join(
            [kind, str(index.get("dtype", ""))]
            + ([f"names={index['names']}"] if index.get("names") else [])
            + ([f"{index['first']}..{index['last']}"] if values and "first" in index else [])
        )
    return text if index.get("is_unique", True) else text + " (not unique)"


def _clip(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= VALUE_LIMIT else text[: VALUE_LIMIT - 3] + "..."
