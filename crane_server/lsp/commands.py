"""The crane.* commands: attach a kernel, list kernels, a document's status, ask the LLM, show its prompt."""

from __future__ import annotations

import uuid
from typing import Any

import msgspec
from lsprotocol import types

from crane_server.documents import Cell
from crane_server.errors import CraneError, SettingsError
from crane_server.llm.engine import check_cell_llm, fetch_snapshot
from crane_server.llm.prompts import categories_for, render_prompt
from crane_server.lsp.diagnostics import to_diagnostic
from crane_server.lsp.service import CraneService, Diagnostics, OpenDocument
from crane_server.protocol import Finding
from crane_server.protocol.lsp import (
    AttachKernelArgs,
    CellArgs,
    CheckCommandResult,
    KernelListEntry,
)
from crane_server.settings import LlmSettings, resolve_settings


def decode_argument(arguments: tuple[Any, ...], kind: type[Any]) -> Any:
    """The command's single object argument as a Struct; SettingsError when malformed."""
    if len(arguments) != 1:
        raise SettingsError(f"expected one argument object, got {len(arguments)}")
    try:
        return msgspec.convert(arguments[0], kind)
    except msgspec.ValidationError as exc:
        raise SettingsError(f"invalid argument: {exc}") from exc


async def attach_kernel(service: CraneService, arguments: tuple[Any, ...]) -> Any:
    args: AttachKernelArgs = decode_argument(arguments, AttachKernelArgs)
    return msgspec.to_builtins(await service.attach(args))


async def list_kernels(service: CraneService) -> Any:
    entries: dict[str, KernelListEntry] = {}
    for record in await service.registry.discover():
        if not record.stale:
            entries[str(record.connection_file)] = KernelListEntry(
                kernel_id=record.kernel_id,
                connection_file=str(record.connection_file),
                notebook_path=record.notebook_path,
                state=record.state,
            )
    for owner in service.documents.values():
        session = owner.binding.session
        if session is None:
            continue
        key = str(session.connection_file)
        entry = entries.setdefault(
            key,
            KernelListEntry(kernel_id=session.kernel_id, connection_file=key, state=session.state),
        )
        entry.state = session.state
        entry.bound_documents.append(owner.document.uri)
    return msgspec.to_builtins(list(entries.values()))


async def document_status(service: CraneService, arguments: tuple[Any, ...]) -> Any:
    """`crane.status`: the document's kernel, its state and the dry-run mode (KernelStatus)."""
    args: CellArgs = decode_argument(arguments, CellArgs)
    owner = service.owner_of(args.uri)
    if owner is None:
        raise CraneError(f"{args.uri} is not open")
    return msgspec.to_builtins(service.status(owner))


def _target(service: CraneService, args: CellArgs) -> tuple[OpenDocument, Cell]:
    located = service.locate_cell(args.uri, args.line)
    if located is None or not located[1].is_code:
        raise CraneError(f"no code cell at {args.uri}:{args.line}")
    return located[0], located[1]


def _context(owner: OpenDocument, cell: Cell) -> tuple[list[str], list[Finding]]:
    executed = [c.text for c in owner.document.code_cells if c.index < cell.index]
    verdict = owner.last_verdict
    result = verdict.results.get(cell.index) if verdict else None
    return executed, list(result.findings) if result else []


def _llm_settings(service: CraneService) -> LlmSettings:
    return resolve_settings(model=service.settings.llm.model, privacy=service.settings.llm.privacy)


async def check_with_llm(service: CraneService, arguments: tuple[Any, ...]) -> Any:
    """`crane.check`: ask the LLM about one cell, with work-done progress; Warnings result."""
    args: CellArgs = decode_argument(arguments, CellArgs)
    owner, cell = _target(service, args)
    token = await _begin_progress(service, "crane: asking the LLM")
    result = await ask_llm(service, owner, cell, token)
    return msgspec.to_builtins(CheckCommandResult(uri=args.uri, **result))


async def auto_check(service: CraneService, owner: OpenDocument, cell: Cell) -> None:
    """The LLM check the `llm.trigger: auto` setting runs after an edit (no progress)."""
    await ask_llm(service, owner, cell, None)


async def ask_llm(
    service: CraneService, owner: OpenDocument, cell: Cell, token: str | None
) -> dict[str, Any]:
    """Ask the LLM about `cell`, publish its Warnings; return the command result's fields."""
    executed, rule_findings = _context(owner, cell)
    try:
        session = owner.binding.session
        outcome = await check_cell_llm(
            session,
            cell.text,
            executed_cells=executed,
            snapshot=None,
            rule_findings=rule_findings,
            settings=_llm_settings(service),
            setting=service.settings.llm.setting,
        )
    except CraneError as exc:
        _end_progress(service, token, f"failed: {exc}")
        return {"error": str(exc)}
    document = owner.document if session is None else service.mark_executed(owner.document, session)
    marked = document.cell(cell.index) or cell
    found: Diagnostics = {}
    for finding in outcome.findings:
        placed = to_diagnostic(document, marked, finding)
        if placed is not None:
            found.setdefault(placed[0], []).append(placed[1])
    service.set_llm(owner, cell, found)
    _end_progress(
        service, token, "crash predicted" if outcome.verdict.crash else "no crash predicted"
    )
    return {"crash": outcome.verdict.crash, "diagnoses": len(outcome.findings)}


async def show_prompt(service: CraneService, arguments: tuple[Any, ...]) -> str:
    """`crane.showPrompt`: the exact text the LLM would get for the cell."""
    args: CellArgs = decode_argument(arguments, CellArgs)
    owner, cell = _target(service, args)
    executed, rule_findings = _context(owner, cell)
    setting = service.settings.llm.setting
    snapshot = None
    categories = categories_for(setting)
    if owner.binding.session is not None and categories:
        snapshot = await fetch_snapshot(owner.binding.session, cell.text, categories)
    return render_prompt(
        cell.text,
        executed_cells=executed,
        snapshot=snapshot,
        rule_findings=rule_findings,
        setting=setting,
        privacy=_llm_settings(service).privacy,
    )


async def _begin_progress(service: CraneService, title: str) -> str | None:
    capabilities = service.server.client_capabilities
    if not (capabilities and capabilities.window and capabilities.window.work_done_progress):
        return None
    token = f"crane-check-{uuid.uuid4().hex[:8]}"
    try:
        await service.server.work_done_progress.create_async(token)
    except Exception:
        return None
    service.server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title))
    return token


def _end_progress(service: CraneService, token: str | None, message: str) -> None:
    if token is not None:
        service.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
