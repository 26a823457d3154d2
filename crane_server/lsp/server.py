"""The pygls server: LSP messages in, delegated to CraneService; every handler guards itself."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from crane_server import __version__
from crane_server.documents import NOTEBOOK_TYPES
from crane_server.lsp import commands
from crane_server.lsp.actions import code_actions
from crane_server.lsp.hover import LIVE_STATE_NOTE, dry_run_note, hover_name, markdown, name_at
from crane_server.lsp.service import CraneService
from crane_server.lsp.settings import decode_settings
from crane_server.lsp.sync import notebook_from_workspace, text_from_workspace, unmapped_reason
from crane_server.lsp.transport import CraneLanguageServer, CraneProtocol

log = logging.getLogger(__name__)
T = TypeVar("T")

NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            notebook=notebook_type, cells=[types.NotebookCellLanguage(language="python")]
        )
        for notebook_type in NOTEBOOK_TYPES
    ],
    save=False,
)


def guarded(
    default: Any = None,
) -> Callable[[Callable[..., Awaitable[T]]], Callable[..., Awaitable[T]]]:
    """Log and swallow any exception of a handler, answering `default`."""

    def wrap(handler: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
        @functools.wraps(handler)
        async def run(*args: Any) -> Any:
            try:
                return await handler(*args)
            except Exception:
                log.exception("handler %s failed", handler.__name__)
                return default

        return run

    return wrap


def create_server() -> tuple[LanguageServer, CraneService]:
    """Build the server and register every feature."""
    server = CraneLanguageServer(
        "crane-server",
        __version__,
        notebook_document_sync=NOTEBOOK_SYNC,
        protocol_cls=CraneProtocol,
    )
    service = CraneService(server)
    service.auto_llm = functools.partial(commands.auto_check, service)

    def apply_settings(raw: Any) -> None:
        settings, warnings = decode_settings(raw)
        for warning in warnings:
            service.warn_once(warning)
        service.configure(settings)

    @server.feature(types.INITIALIZE)
    @guarded()
    async def initialize(params: types.InitializeParams) -> None:
        apply_settings(params.initialization_options)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @guarded()
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        apply_settings(params.settings)
        for uri, owner in service.documents.items():
            if owner.explicit is None:
                owner.bound = False
            service.schedule(uri, delay=0.0)

    def refresh_notebook(uri: str) -> None:
        document = notebook_from_workspace(server.workspace, uri)
        if document is not None:
            service.update(document)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    @guarded()
    async def notebook_open(params: types.DidOpenNotebookDocumentParams) -> None:
        document = notebook_from_workspace(server.workspace, params.notebook_document.uri)
        if document is not None:
            service.open(document)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    @guarded()
    async def notebook_change(params: types.DidChangeNotebookDocumentParams) -> None:
        refresh_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    @guarded()
    async def notebook_close(params: types.DidCloseNotebookDocumentParams) -> None:
        service.close(params.notebook_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @guarded()
    async def text_open(params: types.DidOpenTextDocumentParams) -> None:
        document = text_from_workspace(server.workspace, params.text_document.uri)
        if document is not None:
            service.open(document)
            return
        reason = unmapped_reason(server.workspace, params.text_document.uri)
        if reason is not None:
            log.info(reason)
            server.window_log_message(
                types.LogMessageParams(type=types.MessageType.Log, message=reason)
            )

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @guarded()
    async def text_change(params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        document = text_from_workspace(server.workspace, uri)
        if document is not None:
            service.update(document)
        elif uri in service.documents:
            service.close(uri)  # no longer a percent script

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guarded()
    async def text_close(params: types.DidCloseTextDocumentParams) -> None:
        if params.text_document.uri in service.documents:
            service.close(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded()
    async def hover(params: types.HoverParams) -> types.Hover | None:
        if not service.settings.hover:
            return None
        located = service.locate_cell(params.text_document.uri, params.position.line)
        if located is None:
            return None
        owner, cell, line = located
        session = owner.binding.session
        if session is None:
            return None
        lines = cell.text.split("\n")
        name = name_at(lines[line], params.position.character) if line < len(lines) else None
        verdict = owner.last_verdict
        note = dry_run_note(verdict.results.get(cell.index) if verdict else None)
        text = None
        if name is not None:
            text = await hover_name(session, name, timeout=service.settings.check_timeout_s)
        state = LIVE_STATE_NOTE if verdict is not None and verdict.live_state_only else None
        shown = [part for part in (text, note, state) if part]
        return markdown("  \n".join(shown)) if shown else None

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    @guarded(default=[])
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        owner = service.owner_of(params.text_document.uri)
        if owner is None:
            return []
        return code_actions(
            owner.document, params.text_document.uri, list(params.context.diagnostics)
        )

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="crane", inter_file_dependencies=True, workspace_diagnostics=False
        ),
    )
    @guarded()
    async def pull_diagnostics(
        params: types.DocumentDiagnosticParams,
    ) -> types.FullDocumentDiagnosticReport:
        return types.FullDocumentDiagnosticReport(
            items=service.diagnostics_for(params.text_document.uri)
        )

    @server.command("crane.attachKernel")
    async def attach_kernel(*arguments: Any) -> Any:
        return await commands.attach_kernel(service, arguments)

    @server.command("crane.listKernels")
    async def list_kernels(*arguments: Any) -> Any:
        return await commands.list_kernels(service)

    @server.command("crane.status")
    async def status(*arguments: Any) -> Any:
        return await commands.document_status(service, arguments)

    @server.command("crane.check")
    async def check(*arguments: Any) -> Any:
        return await commands.check_with_llm(service, arguments)

    @server.command("crane.showPrompt")
    async def show_prompt(*arguments: Any) -> Any:
        return await commands.show_prompt(service, arguments)

    @server.feature(types.SHUTDOWN)
    @guarded()
    async def shutdown(params: None) -> None:
        await service.close_all()

    return server, service
