"""Decide which kernel serves a document, in DESIGN.md's order of resolution.

explicit attach (command, settings, client hint) > the notebook path known to a Jupyter
server or written in the connection file > an unambiguous history match > the only live
kernel. Every binding carries one sentence saying which kernel and why (or why none).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from crane_server.documents import CellDocument
from crane_server.errors import CraneError, KernelNotFound
from crane_server.kernels.history import HistoryMatch, match_significant_lines
from crane_server.kernels.remote_server import ServerEndpoint
from crane_server.kernels.remote_sessions import find_sessions, kernel_servers
from crane_server.kernels.session import KernelSession
from crane_server.lsp.kernels import KernelRegistry
from crane_server.protocol.kernels import KernelRecord
from crane_server.protocol.lsp import AttachKernelArgs, BindingReason, ServerSettings

log = logging.getLogger(__name__)

HISTORY_THRESHOLD = 0.5  # share of the notebook's significant lines the kernel ran
HISTORY_MARGIN = 0.25  # the winner's lead over the runner-up
HISTORY_MIN_LINES = 2  # significant lines matched, at least
ATTACH_HINT = "use Attach kernel to choose one"
_KERNEL_FILE = re.compile(r"kernel-([A-Za-z0-9][A-Za-z0-9_.-]{0,127})\.json")


@dataclass(frozen=True)
class Binding:
    session: KernelSession | None
    reason: BindingReason = "none"
    detail: str = "no kernel bound"


NO_KERNEL = Binding(None, "none")


def _name(session: KernelSession) -> str:
    return f"kernel {session.kernel_id or session.connection_file}"


def history_winner(
    scores: list[tuple[HistoryMatch, KernelSession]],
) -> tuple[KernelSession | None, str]:
    """The kernel whose history clearly matches best, or None and why none was chosen."""
    ranked = sorted(scores, key=lambda item: item[0].score, reverse=True)
    if not ranked or ranked[0][0].matched == 0:
        return None, "no kernel ran this notebook's code"
    best, session = ranked[0]
    runner_up = ranked[1][0].score if len(ranked) > 1 else 0.0
    if (
        best.score >= HISTORY_THRESHOLD
        and best.matched >= HISTORY_MIN_LINES
        and best.score - runner_up >= HISTORY_MARGIN
    ):
        return session, (
            f"{_name(session)}: history match ({best.matched} of {best.total} lines of this "
            f"document ran there; runner-up {runner_up:.0%})"
        )
    return None, (
        f"history match ambiguous ({best.matched} of {best.total} lines, {best.score:.0%}, "
        f"runner-up {runner_up:.0%})"
    )


def same_notebook(document_path: str, recorded: str) -> bool:
    """Tell whether two spellings of a notebook path (absolute or server-relative) agree."""
    ours, theirs = PurePosixPath(document_path).parts, PurePosixPath(recorded).parts
    if not ours or not theirs:
        return False
    shorter = min(len(ours), len(theirs))
    return ours[-shorter:] == theirs[-shorter:]


async def _explicit(
    registry: KernelRegistry,
    connection_file: str | None,
    kernel_id: str | None,
    servers: Sequence[ServerEndpoint] = (),
    timeout: float = 5.0,
) -> KernelSession | None:
    """The kernel named by a file or an id. A connection file that is not on this machine (a
    remote kernel's, as an editor's kernel reports it) stands for its kernel id, `kernel-ID.json`,
    which is looked up here and then on the configured servers."""
    if connection_file:
        local = Path(connection_file).expanduser()
        named = _KERNEL_FILE.fullmatch(local.name)
        if local.exists() or not servers or (named is None and not kernel_id):
            return await registry.attach(connection_file)
        kernel_id = kernel_id or (named.group(1) if named else None)
    if not kernel_id:
        return None
    try:
        return await registry.attach_id(kernel_id)
    except KernelNotFound:
        if not servers:
            raise
    found = await kernel_servers(servers, kernel_id, timeout=timeout)
    if len(found) != 1:
        where = ", ".join(endpoint.display_url for endpoint in servers[:3])
        which = (
            f"{len(found)} of the configured servers have it"
            if found
            else "none of the configured servers has it"
        )
        raise KernelNotFound(f"no kernel {kernel_id} on this machine, and {which} ({where})")
    (endpoint,) = found
    return await registry.attach_remote(
        endpoint.base_url, kernel_id, endpoint.token, endpoint.extra_headers
    )


async def resolve_binding(
    registry: KernelRegistry,
    document: CellDocument,
    *,
    explicit: AttachKernelArgs | None,
    settings: ServerSettings,
    servers: Sequence[ServerEndpoint] = (),
    on_error: Callable[[str], None] | None = None,
) -> Binding:
    """Return the kernel for `document`; explicit choices raise when they cannot be met.

    `servers`: the configured Jupyter servers, asked for a session of the document's path when
    no local kernel serves it by path; `on_error` hears one line per server that failed.
    """
    if explicit is not None and explicit.server_url and explicit.kernel_id:
        token = os.environ.get(explicit.token_env or "CRANE_JUPYTER_TOKEN") or None
        remote = await registry.attach_remote(explicit.server_url, explicit.kernel_id, token)
        where = f"kernel {explicit.kernel_id} on {remote.server_url or explicit.server_url}"
        return Binding(remote, "command", f"{where}: attached by command")
    if explicit is not None:
        session = await _explicit(
            registry,
            explicit.connection_file,
            explicit.kernel_id,
            servers,
            settings.server_timeout_s,
        )
        if session is not None:
            return Binding(session, "command", f"{_name(session)}: attached by command")
    session = await _explicit(registry, settings.connection_file, settings.kernel_id)
    if session is not None:
        setting = "connectionFile" if settings.connection_file else "kernelId"
        return Binding(session, "hint", f"{_name(session)}: the {setting} setting")
    records = [record for record in await registry.discover() if not record.stale]
    if document.path_hint:
        for record in records:
            if record.notebook_path and same_notebook(document.path_hint, record.notebook_path):
                found = await _try_attach(registry, record)
                if found is not None:
                    return Binding(
                        found,
                        "notebook-path",
                        f"{_name(found)}: the Jupyter session of {record.notebook_path}",
                    )
    why = "no live kernel found"
    if document.path_hint and servers:
        by_server, remote_why = await _remote_session(
            registry, document.path_hint, servers, settings.server_timeout_s, on_error
        )
        if by_server is not None:
            return by_server
        why = remote_why or why
    sources = [cell.text for cell in document.code_cells if cell.text.strip()]
    if sources and len(records) > 1:
        scores: list[tuple[HistoryMatch, KernelSession]] = []
        for record in records:
            candidate = await _try_attach(registry, record)
            if candidate is None:
                continue
            try:
                scores.append((await match_significant_lines(candidate, sources), candidate))
            except CraneError:
                continue
        winner, why = history_winner(scores)
        if winner is not None:
            return Binding(winner, "history", why)
        why = f"{len(records)} live local kernels and {why}"
    if len(records) == 1:
        found = await _try_attach(registry, records[0])
        if found is not None:
            return Binding(found, "only-kernel", f"{_name(found)}: the only live kernel")
        why = "the only live kernel is not reachable"
    return Binding(None, "none", f"no kernel: {why}; {ATTACH_HINT}")


async def _try_attach(registry: KernelRegistry, record: KernelRecord) -> KernelSession | None:
    try:
        return await registry.attach(record.connection_file)
    except CraneError as exc:
        log.info("kernel %s is not reachable: %s", record.connection_file, exc)
        return None


async def _remote_session(
    registry: KernelRegistry,
    path: str,
    servers: Sequence[ServerEndpoint],
    timeout: float,
    on_error: Callable[[str], None] | None,
) -> tuple[Binding | None, str | None]:
    """The kernel of the one server session whose notebook is `path`; else None and why."""
    matches, errors = await find_sessions(servers, path, timeout=timeout)
    for error in errors:
        if on_error is not None:
            on_error(f"crane: {error}")  # shown and logged once by the language server
        else:
            log.warning("crane: %s", error)
    if not matches:
        return None, ("no server session for this notebook" if not errors else errors[0])
    if len(matches) > 1:
        where = ", ".join(f"{m.path} on {m.endpoint.display_url}" for m in matches[:3])
        return None, f"{len(matches)} server sessions match this notebook ({where})"
    (match,) = matches
    try:
        session = await registry.attach_remote(
            match.endpoint.base_url,
            match.kernel_id,
            match.endpoint.token,
            match.endpoint.extra_headers,
        )
    except CraneError as exc:
        if on_error is not None:
            on_error(f"crane: {exc}")
        return None, str(exc)
    detail = (
        f"kernel {match.kernel_id} on {match.endpoint.display_url}: "
        f"the server's session of {match.path}"
    )
    return Binding(session, "notebook-path", detail), None
