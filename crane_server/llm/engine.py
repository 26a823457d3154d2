"""The LLM tier for one target cell: snapshot, prompt, cached model call, findings."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

if TYPE_CHECKING:  # the openai SDK is loaded only when a model is asked
    from crane_server.llm.client import LlmClient

from crane_server.errors import CraneError
from crane_server.llm.cache import LlmCache, cache_key
from crane_server.llm.cell_uses import cell_uses
from crane_server.llm.prompts import build_prompt, categories_for, check_mode
from crane_server.protocol.findings import Evidence, Finding
from crane_server.protocol.llm import LlmOutcome
from crane_server.protocol.snapshot import RuntimeSnapshot
from crane_server.protocol.verdict import Verdict
from crane_server.settings import LlmSettings

log = logging.getLogger(__name__)

LLM_SOURCE = "crane-llm"
LLM_CODE = "llm-crash"
DEFAULT_CACHE = LlmCache()
_SNAPSHOT = msgspec.json.Decoder(RuntimeSnapshot)


class ProbeSession(Protocol):
    """What the LLM tier needs from a kernel session."""

    async def run_probe(self, op: str, payload: dict[str, Any], *, timeout: float = 5.0) -> Any: ...


async def fetch_snapshot(
    session: ProbeSession, source: str, categories: Sequence[str], *, with_calls: bool = False
) -> RuntimeSnapshot | None:
    """Summarise the names the cell uses; None when the kernel cannot be read."""
    uses = cell_uses(source)
    names = uses.probe_names()
    if with_calls:
        names += [call for call in uses.calls if "." in call and call not in names]
    payload = {"names": names, "categories": list(categories)}
    try:
        raw = await session.run_probe("summarise", payload)
        return _SNAPSHOT.decode(msgspec.json.encode(raw))
    except (CraneError, msgspec.DecodeError) as exc:
        log.info("no runtime snapshot for the LLM prompt: %s", exc)
        return None


async def check_cell_llm(
    session_or_none: ProbeSession | None,
    source: str,
    *,
    executed_cells: Sequence[str],
    snapshot: RuntimeSnapshot | None,
    rule_findings: Sequence[Finding],
    settings: LlmSettings,
    setting: str = "runtime",
    task: str = "joint",
    client: LlmClient | None = None,
    cache: LlmCache | None = DEFAULT_CACHE,
) -> LlmOutcome:
    """Ask the model about `source`; raises LlmError subclasses, never a foreign exception."""
    check_mode(setting, task)
    categories = categories_for(setting)
    if categories and snapshot is None and session_or_none is not None:
        snapshot = await fetch_snapshot(
            session_or_none, source, categories, with_calls=setting == "runtime+doc"
        )
    prompt = build_prompt(
        source,
        executed_cells=executed_cells,
        snapshot=snapshot,
        rule_findings=rule_findings,
        setting=setting,
        task=task,
        privacy=settings.privacy,
    )
    key = cache_key(prompt, settings, setting, task)
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            return msgspec.structs.replace(hit, cached=True)
    own_client = client is None
    if client is None:
        from crane_server.llm.client import LlmClient

        client = LlmClient(settings)
    active = client
    try:
        reply = await active.ask(prompt.system, prompt.user, task=task)
    finally:
        if own_client:
            await active.aclose()
    outcome = LlmOutcome(
        verdict=reply.verdict,
        findings=dedupe(verdict_findings(reply.verdict, source), rule_findings),
        usage=reply.usage,
        setting=setting,
        task=task,
        prompt_chars=len(prompt.system) + len(prompt.user),
        cache_key=key,
    )
    if cache is not None:
        cache.put(key, outcome)
    return outcome


def verdict_findings(verdict: Verdict, source: str) -> list[Finding]:
    """Warning findings for the model's diagnoses (one at line 1 when it gave none)."""
    if not verdict.crash:
        return []
    lines = source.splitlines() or [""]
    findings = []
    diagnoses = verdict.diagnoses or []
    if not diagnoses:
        return [_finding(lines, None, "Exception", verdict.reasoning or "crash predicted", "", "")]
    for diagnosis in diagnoses:
        findings.append(
            _finding(
                lines,
                diagnosis.line,
                diagnosis.exception or "Exception",
                diagnosis.cause or verdict.reasoning,
                diagnosis.fix,
                verdict.reasoning,
            )
        )
    return findings


def _finding(
    lines: list[str], line: int | None, exception: str, cause: str, fix: str, reasoning: str
) -> Finding:
    number = line if line is not None and 1 <= line <= len(lines) else 1
    text = lines[number - 1]
    facts = [reasoning] if reasoning and reasoning != cause else []
    return Finding(
        code=LLM_CODE,
        exception=exception,
        message=f"{exception} predicted: {cause}" if cause else f"{exception} predicted",
        line=number,
        column=len(text) - len(text.lstrip()),
        end_line=number,
        end_column=len(text),
        severity="warning",
        source=LLM_SOURCE,
        evidence=Evidence(facts=facts),
        fix=fix or None,
    )


def dedupe(llm_findings: Sequence[Finding], rule_findings: Sequence[Finding]) -> list[Finding]:
    """Drop model findings a rule already reports (same line and exception) and repeats."""
    seen = {(f.line, f.exception) for f in rule_findings}
    kept = []
    for finding in llm_findings:
        key = (finding.line, finding.exception)
        if key not in seen:
            seen.add(key)
            kept.append(finding)
    return kept


def merge_findings(rule_findings: Sequence[Finding], outcome: LlmOutcome | None) -> list[Finding]:
    """Rule findings first, then the model's that no rule already reports."""
    merged = list(rule_findings)
    if outcome is not None:
        merged.extend(dedupe(outcome.findings, rule_findings))
    return merged
