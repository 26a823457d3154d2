"""What one LLM check cost and answered: usage, latency, verdict and its findings."""

from __future__ import annotations

import msgspec

from crane_server.protocol.findings import Finding
from crane_server.protocol.verdict import Verdict


class LlmUsage(msgspec.Struct, kw_only=True):
    """Token usage and latency of one model call (cached answers report the original call)."""

    model: str = ""
    api_style: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    latency_ms: float = 0.0
    attempts: int = 1
    response_format: str = ""


class LlmOutcome(msgspec.Struct, kw_only=True):
    """The LLM tier's answer for one target cell.

    `findings` are the model's diagnoses as Warning findings (source "crane-llm"), without
    the ones a rule already reported on the same line with the same exception.
    """

    verdict: Verdict
    findings: list[Finding] = msgspec.field(default_factory=list)
    usage: LlmUsage = msgspec.field(default_factory=LlmUsage)
    cached: bool = False
    setting: str = "runtime"
    task: str = "joint"
    prompt_chars: int = 0
    cache_key: str = ""
