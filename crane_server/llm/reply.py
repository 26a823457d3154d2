"""The verdict's JSON Schema for structured output, and tolerant decoding of model replies."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import msgspec

from crane_server.errors import LlmReplyInvalid
from crane_server.protocol.verdict import Diagnosis, Verdict

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_DECODER = msgspec.json.Decoder(Verdict)


class DetectionVerdict(msgspec.Struct, kw_only=True):
    """Detection-only answer: the paper's task without diagnoses."""

    crash: bool
    reasoning: str = ""


@lru_cache(maxsize=2)
def strict_schema(task: str = "joint") -> dict[str, Any]:
    """A JSON Schema accepted by OpenAI's strict structured output (all fields required)."""
    struct: type[msgspec.Struct] = Verdict if task == "joint" else DetectionVerdict
    raw = msgspec.json.schema(struct)
    definitions = raw.get("$defs", {})
    strict: dict[str, Any] = _strictify(_inline(raw, definitions))
    return strict


def _inline(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            return _inline(definitions[ref.rsplit("/", 1)[-1]], definitions)
        return {k: _inline(v, definitions) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline(item, definitions) for item in node]
    return node


def _strictify(node: Any) -> Any:
    if isinstance(node, list):
        return [_strictify(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strictify(v) for k, v in node.items() if k not in ("default", "title")}
    if out.get("type") == "object" and "properties" in out:
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


def parse_verdict(text: str) -> Verdict:
    """Decode a verdict from a model reply: bare JSON, fenced JSON, or JSON inside prose."""
    if not text or not text.strip():
        raise LlmReplyInvalid("the model answered with an empty reply")
    for candidate in _candidates(text):
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            verdict = _to_verdict(data)
            if verdict is not None:
                return verdict
    preview = " ".join(text.split())[:120]
    raise LlmReplyInvalid(f"the model's reply is not a verdict: {preview!r}")


def _candidates(text: str) -> list[str]:
    stripped = text.strip()
    found = [stripped]
    found.extend(match.group(1).strip() for match in _FENCE.finditer(text))
    found.extend(_balanced_objects(text))
    return found


def _balanced_objects(text: str) -> list[str]:
    """Every top-level {...} span, string-aware, in order of appearance."""
    spans: list[str] = []
    depth = 0
    start = -1
    in_string = False
    escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"' and depth > 0:
            in_string = True
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : index + 1])
    return spans


def _to_verdict(data: dict[str, Any]) -> Verdict | None:
    if "crash" not in data and "detection" in data:  # the paper's field name
        data = {**data, "crash": data["detection"]}
    if not isinstance(data.get("crash"), bool):
        crash = data.get("crash")
        if isinstance(crash, str) and crash.strip().lower() in ("true", "false"):
            data = {**data, "crash": crash.strip().lower() == "true"}
        else:
            return None
    cleaned = {
        "crash": data["crash"],
        "reasoning": str(data.get("reasoning") or ""),
        "diagnoses": [_diagnosis(item) for item in data.get("diagnoses") or [] if item],
    }
    try:
        return _DECODER.decode(msgspec.json.encode(cleaned))
    except msgspec.ValidationError:
        return None


def _diagnosis(item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        return {"cause": str(item)}
    line = item.get("line")
    if isinstance(line, str) and line.strip().isdigit():
        line = int(line.strip())
    return {
        "exception": str(item.get("exception") or "Exception"),
        "line": line if isinstance(line, int) and not isinstance(line, bool) else None,
        "cause": str(item.get("cause") or ""),
        "fix": str(item.get("fix") or ""),
    }


__all__ = ["DetectionVerdict", "Diagnosis", "Verdict", "parse_verdict", "strict_schema"]
