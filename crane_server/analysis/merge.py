"""The one place where the tiers' verdicts meet: the checker's findings and the dry run.

The checker is the instant tier; the twin refines it. The twin raised: its exception is the
Error (on the innermost cell line of the traceback), keeping the checker's fix when the
checker predicted the same exception on that line. The twin ran clean: no crash, and a
checker Error is dropped (and logged: it is a checker false alarm). The twin could not
vouch (unknown, unavailable): the checker's verdict stands. The LLM tier is asked only
where both say nothing (see crane_server.llm.command_support).
"""

from __future__ import annotations

import logging

import msgspec

from crane_server.protocol import CheckResult, Evidence, Finding
from crane_server.protocol.dry_run import DryRun

log = logging.getLogger(__name__)

DRY_RUN_CODE = "dry-run-exception"
CONFIRMED = "confirmed by a dry run: the cell ran on a sealed copy of the kernel and raised this"
SEEN = "seen in a dry run: the cell ran on a sealed copy of the kernel and raised"


def _traceback_facts(dry: DryRun) -> list[str]:
    facts = [SEEN]
    for frame in dry.traceback[-6:]:
        where = "cell" if frame.file == "cell" else frame.file.rsplit("/", 1)[-1]
        facts.append(f"{where}:{frame.line} in {frame.function}: {frame.text}".rstrip(": "))
    return facts


def dry_run_finding(dry: DryRun, source: str) -> Finding:
    """The Error a raised dry run gives, on its line, spanning the line's code."""
    line = dry.line or 1
    lines = source.splitlines()
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    column = len(text) - len(text.lstrip())
    # The text output and the editors show the exception type before the message already.
    message = dry.message or dry.exception or ""
    return Finding(
        code=DRY_RUN_CODE,
        exception=dry.exception or "",
        message=f"{message} (seen in a dry run)",
        line=line,
        column=column,
        end_line=line,
        end_column=len(text.rstrip()) or None,
        evidence=Evidence(facts=_traceback_facts(dry)),
    )


def _same_crash(finding: Finding, dry: DryRun) -> bool:
    return (
        finding.severity == "error"
        and finding.exception == dry.exception
        and dry.line in (finding.line, finding.statement_line)
    )


def merge_dry_run(result: CheckResult, dry: DryRun, source: str) -> CheckResult:
    """The checker's `result` refined by what the twin saw (the DryRun is attached)."""
    merged = msgspec.structs.replace(result, findings=list(result.findings), dry_run=dry)
    errors = [f for f in merged.findings if f.severity == "error"]
    if dry.outcome == "raised":
        confirmed = [f for f in errors if _same_crash(f, dry)]
        others = [f for f in merged.findings if f.severity != "error"]
        if confirmed:
            # The message and evidence stay the checker's, plus one line saying the twin saw it
            # happen; the traceback stays on the attached DryRun (library frames carry
            # version-dependent line numbers, and the checker's evidence already explains).
            # A copy: the checker's own result may be merged again (cached, republished).
            facts = [*confirmed[0].evidence.facts, CONFIRMED]
            evidence = msgspec.structs.replace(confirmed[0].evidence, facts=facts)
            kept = msgspec.structs.replace(confirmed[0], evidence=evidence)
            merged.findings = [kept, *others]
        else:
            if errors:
                log.info(
                    "dry run disagrees with the checker: %s at line %s, checker said %s",
                    dry.exception,
                    dry.line,
                    [(f.code, f.line) for f in errors],
                )
            fix = next((f.fix for f in errors if f.exception == dry.exception), None)
            finding = dry_run_finding(dry, source)
            finding.fix = fix
            merged.findings = [finding, *others]
        merged.crash = True
        merged.engine = _engine(merged.engine)
    elif dry.outcome == "clean":
        if errors:
            log.warning(
                "checker false alarm: the dry run ran clean where the checker said %s",
                [(f.code, f.line, f.exception) for f in errors],
            )
        merged.findings = [f for f in merged.findings if f.severity != "error"]
        merged.crash = False
        merged.engine = _engine(merged.engine)
    return merged


def _engine(engine: str) -> str:
    return engine if "dry-run" in engine else f"{engine}+dry-run"
