"""Prompts in the modes of the CRANE-LLM paper.

Tasks: "detection" (crash or not, with a short reasoning) and "joint" (detection plus a
diagnosis per predicted crash). Settings: "code" (-RT: executed cells and target only),
"runtime" (+RT), "runtime-S" / "runtime-V" / "runtime-R" (+RT without one category),
"runtime+doc" (+RT plus signatures and first docstring lines of library callables).
The input keeps the paper's sections: [Executed Cells], [Target Cell] and
[Current relevant runtime information]; target lines are numbered so that diagnoses can
name a line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from crane_server.errors import SettingsError
from crane_server.llm.runtime_section import (
    compact_runtime_section,
    doc_section,
    paper_runtime_section,
)
from crane_server.protocol.findings import Finding
from crane_server.protocol.snapshot import RuntimeSnapshot

Setting = Literal["code", "runtime", "runtime-S", "runtime-V", "runtime-R", "runtime+doc"]
Task = Literal["detection", "joint"]
RuntimeStyle = Literal["compact", "paper"]
SETTINGS: tuple[str, ...] = get_args(Setting)
TASKS: tuple[str, ...] = get_args(Task)

_ROLE = "You predict crashes of machine-learning notebook cells before they run."
_GIVEN_CODE = (
    "You are given [Executed Cells], code that already ran successfully in this kernel, in "
    "execution order, and a [Target Cell] (lines numbered) that has not run yet."
)
_GIVEN_RUNTIME = (
    " You are also given [Current relevant runtime information]: a summary of the live "
    "objects the target cell uses (types, shapes, columns, dtypes, values), taken just now."
    " Facts listed as found by the rule checker are certain."
)
_GIVEN_DOC = " [Library documentation] lists signatures of library callables the cell uses."
_STEPS = (
    "Reason step by step about whether executing the [Target Cell] now will raise an "
    "exception. Report a crash only when you are certain it will happen; otherwise answer "
    "false."
)
_OUTPUT_JOINT = (
    'Answer with one JSON object and nothing else: {"crash": true|false, "reasoning": '
    '"1-2 sentences", "diagnoses": [{"exception": "ExceptionType", "line": <line in the '
    'target cell>, "cause": "why it raises", "fix": "corrected code"}]}. Give one diagnosis '
    "per distinct crash; an empty list when crash is false."
)
_OUTPUT_DETECTION = (
    'Answer with one JSON object and nothing else: {"crash": true|false, "reasoning": '
    '"1-2 sentences"}.'
)


@dataclass(frozen=True)
class Prompt:
    """The two messages sent to the model."""

    system: str
    user: str

    def render(self) -> str:
        """The exact text sent, as `--show-prompt` prints it."""
        return f"=== system ===\n{self.system}\n=== user ===\n{self.user}\n"


def categories_for(setting: str) -> tuple[str, ...]:
    """Runtime categories a setting sends ((): none)."""
    if setting == "code":
        return ()
    if setting.startswith("runtime-") and setting[-1] in "SVR":
        return tuple(c for c in ("S", "V", "R") if c != setting[-1])
    return ("S", "V", "R")


def check_mode(setting: str, task: str) -> None:
    if setting not in SETTINGS:
        raise SettingsError(f"setting must be one of {', '.join(SETTINGS)}, not {setting!r}")
    if task not in TASKS:
        raise SettingsError(f"task must be one of {', '.join(TASKS)}, not {task!r}")


def system_prompt(setting: str = "runtime", task: str = "joint") -> str:
    check_mode(setting, task)
    given = _GIVEN_CODE
    if setting != "code":
        given += _GIVEN_RUNTIME
    if setting == "runtime+doc":
        given += _GIVEN_DOC
    output = _OUTPUT_JOINT if task == "joint" else _OUTPUT_DETECTION
    return "\n\n".join((_ROLE, given, _STEPS, output))


def build_prompt(
    source: str,
    *,
    executed_cells: Sequence[str],
    snapshot: RuntimeSnapshot | None,
    rule_findings: Sequence[Finding] = (),
    setting: str = "runtime",
    task: str = "joint",
    privacy: str = "full",
    runtime_style: RuntimeStyle = "compact",
) -> Prompt:
    """Both messages for one target cell."""
    check_mode(setting, task)
    sections = ["[Executed Cells]", _executed(executed_cells), "", "[Target Cell]"]
    sections.append(_numbered(source))
    categories = categories_for(setting)
    if categories:
        sections += ["", "[Current relevant runtime information]"]
        if snapshot is None:
            sections.append("(not available: the kernel could not be read)")
        elif runtime_style == "paper":
            sections.append(paper_runtime_section(snapshot, categories=categories, privacy=privacy))
        else:
            sections.append(
                compact_runtime_section(
                    snapshot,
                    source,
                    categories=categories,
                    privacy=privacy,
                    rule_findings=rule_findings,
                )
                or "(nothing the target cell uses is defined in the kernel)"
            )
        if setting == "runtime+doc" and snapshot is not None:
            docs = doc_section(snapshot, source)
            sections += ["", "[Library documentation]", docs or "(none found)"]
    return Prompt(system=system_prompt(setting, task), user="\n".join(sections) + "\n")


def render_prompt(
    source: str,
    *,
    executed_cells: Sequence[str],
    snapshot: RuntimeSnapshot | None,
    rule_findings: Sequence[Finding] = (),
    setting: str = "runtime",
    task: str = "joint",
    privacy: str = "full",
) -> str:
    """The exact text that would be sent (system and user messages), for --show-prompt."""
    return build_prompt(
        source,
        executed_cells=executed_cells,
        snapshot=snapshot,
        rule_findings=rule_findings,
        setting=setting,
        task=task,
        privacy=privacy,
    ).render()


def _executed(cells: Sequence[str]) -> str:
    if not cells:
        return "(none)"
    return "\n\n".join(f"# In[{number}]\n{cell.rstrip()}" for number, cell in enumerate(cells, 1))


def _numbered(source: str) -> str:
    lines = source.rstrip("\n").splitlines() or [""]
    width = len(str(len(lines)))
    return "\n".join(f"{number:>{width}}| {line}" for number, line in enumerate(lines, 1))
