"""The LLM tier's answer, decoded with msgspec from the model's JSON."""

from __future__ import annotations

import msgspec


class Diagnosis(msgspec.Struct, kw_only=True):
    exception: str = "Exception"
    line: int | None = None
    cause: str = ""
    fix: str = ""


class Verdict(msgspec.Struct, kw_only=True):
    crash: bool
    reasoning: str = ""
    diagnoses: list[Diagnosis] = msgspec.field(default_factory=list)
