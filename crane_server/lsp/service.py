"""The server's state: open documents, their kernels, scheduled checks and published results."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import msgspec
from lsprotocol import types
from pygls.lsp.server import LanguageServer

from crane_server.documents import Cell, CellDocument, normalise_source
from crane_server.errors import CraneError, SettingsError
from crane_server.kernels.events import (
    ExecutionFinished,
    KernelDied,
    KernelEvent,
    KernelRestarted,
    StateChanged,
)
from crane_server.kernels.helper import HelperPool
from crane_server.kernels.remote_server import ServerEndpoint
from crane_server.kernels.remote_sessions import configured_servers
from crane_server.kernels.session import KernelSession
from crane_server.lsp.binding import ATTACH_HINT, NO_KERNEL, Binding, resolve_binding
from crane_server.lsp.checks import (
    DocumentVerdict,
    check_document,
    look_ahead,
    oversized,
    refine_in_helpers,
    state_is_not_this_notebooks,
    touched_by,
)
from crane_server.lsp.diagnostics import to_diagnostic
from crane_server.lsp.dry_runs import refine_in_twins
from crane_server.lsp.kernels import KernelRegistry
from crane_server.lsp.tasks import TaskOwner
from crane_server.protocol.lsp import AttachKernelArgs, DryRunState, KernelStatus, ServerSettings
from crane_server.settings import configured_dry_run
from crane_server.twin import DryRunOptions

log = logging.getLogger(__name__)

# A first import in the helper (scikit-learn, statsmodels) takes a few seconds at most.
HELPER_TIMEOUT_S = 20.0

KERNEL_STATUS = "crane/kernelStatus"
MAX_RETRIES = 3
RETRY_DELAY_S = 0.5
REBIND_AFTER_S = 5.0
Diagnostics = dict[str, list[types.Diagnostic]]


@dataclass
class OpenDocument:
    """A document the client has open, its kernel and what we last showed for it."""

    document: CellDocument
    binding: Binding = NO_KERNEL
    bound: bool = False
    explicit: AttachKernelArgs | None = None
    rules: Diagnostics = field(default_factory=dict)
    llm: dict[int, tuple[str, Diagnostics]] = field(default_factory=dict)
    shown: Diagnostics = field(default_factory=dict)
    last_verdict: DocumentVerdict | None = None
    retries: int = 0
    bound_at: float = 0.0  # loop time of the last binding
    server_errors: bool = False  # a configured server could not be asked at the last binding
    dry_run: DryRunState | None = None  # as of the last check (None: none finished yet)
    live_state_only: bool = False  # as of the last check


def _same_code(before: CellDocument, after: CellDocument) -> bool:
    """The same cells, URIs and texts (a change of metadata, outputs or version only)."""
    return [(c.uri, c.kind, c.text) for c in before.cells] == [
        (c.uri, c.kind, c.text) for c in after.cells
    ]


class CraneService:
    """Everything the LSP handlers delegate to; owns every background task."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.settings = ServerSettings()
        self.servers: list[ServerEndpoint] = []  # from settings.servers and the config file
        self.tasks = TaskOwner()
        self.registry = KernelRegistry(self._on_kernel_event)
        self.documents: dict[str, OpenDocument] = {}
        self.refreshes = 0
        self.auto_llm: Callable[[OpenDocument, Cell], Coroutine[Any, Any, None]] | None = None
        self._warned: set[str] = set()
        self._explicit: dict[str, AttachKernelArgs] = {}
        self.helpers = HelperPool()
        try:
            self._configured_dry_run = configured_dry_run()
        except SettingsError as exc:
            self._configured_dry_run = None
            log.warning("%s", exc)

    # -- documents -------------------------------------------------------------------------

    def open(self, document: CellDocument) -> None:
        # A kernel the user chose for this URI stays chosen when the document is reopened.
        explicit = self._explicit.get(document.uri)
        self.documents[document.uri] = OpenDocument(document=document, explicit=explicit)
        self.schedule(document.uri, delay=0.0)

    def update(self, document: CellDocument) -> None:
        """Take a new version of a document; clear what was shown for vanished URIs now."""
        current = self.documents.get(document.uri)
        if current is None:
            self.open(document)
            return
        previous = current.document
        current.document = document
        live = set(document.uris())
        for uri in [uri for uri in current.shown if uri not in live]:
            current.rules.pop(uri, None)
            self._show(current, uri, [])
        if _same_code(previous, document):
            # Only metadata moved (jupyterlab-lsp sends a change when a run updates the
            # prompt's execution count): the run's own check publishes; no typing debounce.
            return
        self.schedule(document.uri, delay=self.settings.debounce_ms / 1000.0)

    def close(self, uri: str) -> None:
        current = self.documents.pop(uri, None)
        self.tasks.cancel(("check", uri))
        if current is not None:
            for shown in list(current.shown):
                self._show(current, shown, [])

    def owner_of(self, uri: str) -> OpenDocument | None:
        """The open document that shows `uri` (the document itself or one of its cells)."""
        found = self.documents.get(uri)
        if found is not None:
            return found
        for candidate in self.documents.values():
            if uri in candidate.document.uris():
                return candidate
        return None

    def locate_cell(self, uri: str, line: int) -> tuple[OpenDocument, Cell, int] | None:
        owner = self.owner_of(uri)
        if owner is None:
            return None
        found = owner.document.find(uri, line)
        return None if found is None else (owner, found[0], found[1])

    # -- kernels ---------------------------------------------------------------------------

    def configure(self, settings: ServerSettings) -> None:
        """Take new settings; the servers' tokens are read now from the environment and the
        config file (never from the settings)."""
        self.settings = settings
        self.registry.heartbeat = settings.kernel_heartbeat_s
        self.servers, warnings = configured_servers(settings.servers)
        for warning in warnings:
            self.warn_once(warning)

    async def attach(self, args: AttachKernelArgs) -> KernelStatus:
        """Bind a document to the kernel named by the command; raise when impossible."""
        owner = self.owner_of(args.uri)
        if owner is None:
            raise CraneError(f"no open document {args.uri}")
        binding = await resolve_binding(
            self.registry,
            owner.document,
            explicit=args,
            settings=self.settings,
            servers=self.servers,
            on_error=self.warn_once,
        )
        owner.explicit, owner.binding, owner.bound = args, binding, True
        self._explicit[owner.document.uri] = args
        owner.last_verdict = None
        self.send_status(owner)
        self.schedule(owner.document.uri, delay=0.0)
        return self.status(owner)

    def status(self, owner: OpenDocument) -> KernelStatus:
        session = owner.binding.session
        if session is None:
            detail = owner.binding.detail if owner.bound else "not bound yet"
            return KernelStatus(uri=owner.document.uri, detail=detail, dry_run="off")
        state = (
            session.state
            if session.state in ("idle", "busy", "starting", "restarting", "dead")
            else "unknown"
        )
        return KernelStatus(
            uri=owner.document.uri,
            kernel_id=session.kernel_id,
            connection_file=str(session.connection_file),
            state=state,  # type: ignore[arg-type]
            reason=owner.binding.reason,
            execution_count=session.execution_count,
            detail=owner.binding.detail,
            # as of the last check; before one, from the document and the runs seen so far
            dry_run=owner.dry_run
            or self.dry_run_state(self.mark_executed(owner.document, session)),
            live_state_only=owner.live_state_only,
        )

    def send_status(self, owner: OpenDocument) -> None:
        self.server.protocol.notify(KERNEL_STATUS, msgspec.to_builtins(self.status(owner)))

    async def _bind(self, owner: OpenDocument) -> None:
        errors: list[str] = []

        def heard(message: str) -> None:
            errors.append(message)
            self.warn_once(message)

        try:
            owner.binding = await resolve_binding(
                self.registry,
                owner.document,
                explicit=owner.explicit,
                settings=self.settings,
                servers=self.servers,
                on_error=heard,
            )
        except CraneError as exc:
            owner.binding = Binding(None, "none", f"no kernel: {exc}; {ATTACH_HINT}")
            self.warn(f"crane: no kernel for {owner.document.uri}: {exc}")
        owner.bound = True
        owner.bound_at = asyncio.get_running_loop().time()
        owner.server_errors = bool(errors)
        owner.last_verdict = None
        self.send_status(owner)

    def _ask_servers_again(self, owner: OpenDocument) -> bool:
        """An unbound document asks the configured servers again on each check (its notebook
        may have got a session since); after a server failed, at most every REBIND_AFTER_S."""
        return (
            owner.binding.session is None
            and owner.explicit is None
            and bool(self.servers)
            and (
                not owner.server_errors
                or asyncio.get_running_loop().time() - owner.bound_at >= REBIND_AFTER_S
            )
        )

    def _on_kernel_event(self, session: KernelSession, event: KernelEvent) -> None:
        for owner in list(self.documents.values()):
            if owner.binding.session is not session:
                continue
            if isinstance(event, ExecutionFinished):
                self.schedule(owner.document.uri, delay=0.0, executed_code=event.code)
            elif isinstance(event, KernelRestarted):
                owner.last_verdict = None
                self.schedule(owner.document.uri, delay=0.0)
            elif (
                isinstance(event, StateChanged)
                and event.state == "idle"
                and (owner.last_verdict is None or owner.last_verdict.static)
                and not self.tasks.running(("check", owner.document.uri))
            ):
                self.schedule(owner.document.uri, delay=0.0)  # judged statically while busy
            elif isinstance(event, KernelDied):
                self.tasks.cancel(("check", owner.document.uri))
                owner.rules.clear()
                self._publish(owner)
                if session.server_url:
                    where = session.location
                    reason = event.reason or "the kernel died"
                    self.warn_once(
                        f"crane: {reason}" if where in reason else f"crane: {where}: {reason}"
                    )
                    if owner.explicit is None:
                        # ask the servers again: the notebook may have a new kernel, or none
                        owner.bound = False
                        self.schedule(owner.document.uri, delay=0.0)
            self.send_status(owner)

    # -- checking --------------------------------------------------------------------------

    def schedule(self, uri: str, *, delay: float, executed_code: str | None = None) -> None:
        """(Re)start the check of a document, cancelling the one it supersedes."""
        self.tasks.replace(
            ("check", uri), self._check(uri, delay, executed_code), name=f"check {uri}"
        )

    async def _check(self, uri: str, delay: float, executed_code: str | None = None) -> None:
        if delay > 0:
            await asyncio.sleep(delay)  # the debounce: a newer edit cancels this task
        owner = self.documents.get(uri)
        if owner is None:
            return
        too_large = oversized(owner.document)
        if too_large is not None:
            owner.rules = self._rule_diagnostics(owner.document, too_large)
            self._publish(owner)
            return
        if not owner.bound or self._ask_servers_again(owner):
            await self._bind(owner)
        session = owner.binding.session
        document = owner.document
        if session is None or session.state == "dead":
            owner.rules.clear()
            self._publish(owner)
            return
        document = self.mark_executed(document, session)
        previous = owner.last_verdict

        def current(verdict: DocumentVerdict) -> bool:
            """False when the document or the kernel moved on (their own check is coming)."""
            if self.documents.get(uri) is not owner:
                return False
            if owner.document.version != document.version and not _same_code(
                owner.document, document
            ):
                return False
            return (
                owner.binding.session is session
                and session.execution_count == verdict.execution_count
            )

        def publish_partial(partial: DocumentVerdict) -> None:
            if not current(partial):
                return
            same = previous is not None and previous.version == document.version
            results = dict(previous.results) if previous and same else {}
            results.update(partial.results)
            merged = DocumentVerdict(partial.version, partial.execution_count, results=results)
            owner.rules = self._rule_diagnostics(document, merged)
            self._publish(owner)

        try:
            verdict = await check_document(
                session,
                document,
                timeout=self.settings.check_timeout_s,
                previous_verdict=previous,
                first=touched_by(executed_code) if executed_code else None,
                on_partial=publish_partial,
                handoff=self.settings.helper_interpreter,
            )
        except (CraneError, TimeoutError) as exc:
            log.info("checking %s failed: %r", uri, exc)
            return
        if not current(verdict):
            return
        owner.last_verdict = verdict
        owner.rules = self._rule_diagnostics(document, verdict)
        self._publish(owner)
        # Cells that first import a library, walked again by a helper interpreter.
        if (
            verdict.handoffs
            and await refine_in_helpers(document, verdict, self.helpers, HELPER_TIMEOUT_S)
            and current(verdict)
        ):
            owner.rules = self._rule_diagnostics(document, verdict)
            self._publish(owner)
        # Then what Run All would reach: crashes of pending cells caused by pending cells above
        # (not when the kernel's state is not this notebook's: one state for every cell).
        verdict.live_state_only = not verdict.static and await state_is_not_this_notebooks(
            session, document, self.settings.check_timeout_s
        )
        if verdict.live_state_only:
            log.info("%s: the kernel's state is not this notebook's; judged live only", uri)
        modes = (self.dry_run_state(document), verdict.live_state_only)
        if modes != (owner.dry_run, owner.live_state_only):
            owner.dry_run, owner.live_state_only = modes
            self.send_status(owner)
        if (
            not verdict.static
            and not verdict.live_state_only
            and await look_ahead(
                session,
                document,
                verdict,
                self.settings.check_timeout_s,
                previous,
                self.helpers if self.settings.helper_interpreter else None,
            )
            and current(verdict)
        ):
            owner.rules = self._rule_diagnostics(document, verdict)
            self._publish(owner)
        # Then the pending cells, run in order for real in a sealed twin of the kernel: what
        # the twin saw refines the checker's and the walk's verdicts (its verdict wins).
        if (
            not verdict.static
            and owner.dry_run == "on"
            and await refine_in_twins(
                session,
                document,
                verdict,
                DryRunOptions(wall_s=self.settings.dry_run_budget_s),
                per_document_s=self.settings.lookahead_budget_s,
            )
            and current(verdict)
        ):
            owner.rules = self._rule_diagnostics(document, verdict)
            self._publish(owner)
        missing = len(verdict.results) < len(document.checked_cells)
        # A static verdict from a kernel that is idle again (it was busy, often with another
        # client's probe, when the check began) is replaced by a full check.
        missing = missing or (verdict.static and session.state == "idle")
        owner.retries = owner.retries + 1 if missing else 0
        if missing and owner.retries <= MAX_RETRIES:
            # some cells got no answer in time (a slow or hiccuping kernel): try them again
            self.schedule(uri, delay=RETRY_DELAY_S * owner.retries)
        if executed_code is None and previous is not None:
            changed = [c for c in document.checked_cells if c.text not in previous.by_text]
            self._auto_llm(owner, changed)

    def dry_run_state(self, document: CellDocument) -> DryRunState:
        """`crane.dryRun`: afterFirstRun waits until a cell of this notebook ran in its kernel
        (opening a notebook never runs its code)."""
        mode: str = self.settings.dry_run
        if mode == "afterFirstRun":  # the default: the config file's dryRun may change it
            mode = self._configured_dry_run or mode
        if mode == "off":
            return "off"
        if mode == "always" or any(c.executed_unchanged for c in document.checked_cells):
            return "on"
        return "waiting"

    def _auto_llm(self, owner: OpenDocument, edited: list[Cell]) -> None:
        """With `llm.trigger: auto`, ask the LLM about the cells an edit changed."""
        if self.settings.llm.trigger != "auto" or self.auto_llm is None:
            return
        for cell in edited:
            key = ("llm", owner.document.uri, cell.index)
            self.tasks.replace(key, self.auto_llm(owner, cell), name=f"llm {cell.uri}")

    def mark_executed(self, document: CellDocument, session: KernelSession) -> CellDocument:
        executed = self.registry.executed_sources(session)
        if not executed:
            return document
        cells = [
            dataclasses.replace(cell, executed_unchanged=normalise_source(cell.text) in executed)
            if cell.is_code
            else cell
            for cell in document.cells
        ]
        return dataclasses.replace(document, cells=cells)

    def _rule_diagnostics(self, document: CellDocument, verdict: DocumentVerdict) -> Diagnostics:
        found: Diagnostics = {uri: [] for uri in document.uris()}
        for index, result in verdict.results.items():
            cell = document.cell(index)
            if cell is None:
                continue
            for finding in result.findings:
                placed = to_diagnostic(
                    document, cell, finding, note_executed=self.settings.information_for_executed
                )
                if placed is not None:
                    found.setdefault(placed[0], []).append(placed[1])
        return found

    def set_llm(self, owner: OpenDocument, cell: Cell, diagnostics: Diagnostics) -> None:
        owner.llm[cell.index] = (cell.text, diagnostics)
        self._publish(owner)

    # -- publishing ------------------------------------------------------------------------

    @property
    def pull_mode(self) -> bool:
        if self.settings.diagnostics == "push":
            return False
        capabilities = self.server.client_capabilities
        text = capabilities.text_document if capabilities else None
        workspace = capabilities.workspace if capabilities else None
        supports_pull = bool(text and text.diagnostic)
        supports_refresh = bool(
            workspace and workspace.diagnostics and workspace.diagnostics.refresh_support
        )
        if self.settings.diagnostics == "pull":
            return supports_pull
        return supports_pull and supports_refresh

    def diagnostics_for(self, uri: str) -> list[types.Diagnostic]:
        owner = self.owner_of(uri)
        return [] if owner is None else list(owner.shown.get(uri, []))

    def _publish(self, owner: OpenDocument) -> None:
        merged: Diagnostics = {uri: list(items) for uri, items in owner.rules.items()}
        for index, (text, by_uri) in owner.llm.items():
            cell = owner.document.cell(index)
            if cell is None or cell.text != text:
                continue
            for uri, items in by_uri.items():
                merged.setdefault(uri, []).extend(items)
        for uri in set(owner.shown) | set(merged):
            self._show(owner, uri, merged.get(uri, []))
        if self.pull_mode:
            self.refreshes += 1
            self.server.workspace_diagnostic_refresh(None)

    def _show(self, owner: OpenDocument, uri: str, items: list[types.Diagnostic]) -> None:
        previous = owner.shown.get(uri)
        if items:
            owner.shown[uri] = items
        else:
            owner.shown.pop(uri, None)
        if self.pull_mode or (previous is None and not items and uri not in owner.document.uris()):
            return
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items)
        )

    def warn(self, message: str) -> None:
        log.warning("%s", message)
        self.server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )

    def warn_once(self, message: str) -> None:
        """Warn about `message` the first time only (settings re-sent often repeat it)."""
        if message in self._warned:
            log.info("%s (already reported)", message)
            return
        self._warned.add(message)
        self.warn(message)

    async def close_all(self) -> None:
        await self.tasks.close()
        await self.registry.close()
        await self.helpers.close()

    def describe(self) -> dict[str, Any]:
        """A small view of the state, for logs."""
        return {uri: self.status(owner).state for uri, owner in self.documents.items()}
