"""Decide which kernel serves a document, in DESIGN.md's order of resolution.

explicit attach (command, settings, client hint) > the notebook path known to a Jupyter
server or written in the connection file > a history match > the only live kernel.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import PurePosixPath

from crane_server.documents import CellDocument
from crane_server.errors import CraneError
from crane_server.kernels.history import match_by_history
from crane_server.kernels.session import KernelSession
from crane_server.lsp.kernels import KernelRegistry
from crane_server.protocol.kernels import KernelRecord
from crane_server.protocol.lsp import AttachKernelArgs, BindingReason, ServerSettings

log = logging.getLogger(__name__)

HISTORY_THRESHOLD = 0.5


@dataclass(frozen=True)
class Binding:
    session: KernelSession | None
    reason: BindingReason = "none"


NO_KERNEL = Binding(None, "none")


def same_notebook(document_path: str, recorded: str) -> bool:
    """Tell whether two spellings of a notebook path (absolute or server-relative) agree."""
    ours, theirs = PurePosixPath(document_path).parts, PurePosixPath(recorded).parts
    if not ours or not theirs:
        return False
    shorter = min(len(ours), len(theirs))
    return ours[-shorter:] == theirs[-shorter:]


async def _explicit(
    registry: KernelRegistry, connection_file: str | None, kernel_id: str | None
) -> KernelSession | None:
    if connection_file:
        return await registry.attach(connection_file)
    if kernel_id:
        return await registry.attach_id(kernel_id)
    return None


async def resolve_binding(
    registry: KernelRegistry,
    document: CellDocument,
    *,
    explicit: AttachKernelArgs | None,
    settings: ServerSettings,
) -> Binding:
    """Return the kernel for `document`; explicit choices raise when they cannot be met."""
    if explicit is not None:
        session = await _explicit(registry, explicit.connection_file, explicit.kernel_id)
        if session is not None:
            return Binding(session, "command")
    session = await _explicit(registry, settings.connection_file, settings.kernel_id)
    if session is not None:
        return Binding(session, "hint")
    records = [record for record in await registry.discover() if not record.stale]
    if document.path_hint:
        for record in records:
            if record.notebook_path and same_notebook(document.path_hint, record.notebook_path):
                found = await _try_attach(registry, record)
                if found is not None:
                    return Binding(found, "notebook-path")
    sources = [cell.text for cell in document.code_cells if cell.text.strip()]
    if sources and len(records) > 1:
        best: tuple[float, KernelSession] | None = None
        for record in records:
            candidate = await _try_attach(registry, record)
            if candidate is None:
                continue
            try:
                score = await match_by_history(candidate, sources)
            except CraneError:
                continue
            if score >= HISTORY_THRESHOLD and (best is None or score > best[0]):
                best = (score, candidate)
        if best is not None:
            return Binding(best[1], "history")
    if len(records) == 1:
        found = await _try_attach(registry, records[0])
        if found is not None:
            return Binding(found, "only-kernel")
    return NO_KERNEL


async def _try_attach(registry: KernelRegistry, record: KernelRecord) -> KernelSession | None:
    try:
        return await registry.attach(record.connection_file)
    except CraneError as exc:
        log.info("kernel %s is not reachable: %s", record.connection_file, exc)
        return None
