"""The Jupyter servers a language server is configured with, and which of their sessions serves
a notebook path.

Tokens come from the language server's environment (`tokenEnv`, else CRANE_JUPYTER_TOKEN) or
the config file's `jupyter_servers`, never from the settings themselves; no message here
contains one (URLs are shown by `ServerEndpoint.display_url`).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit, urlunsplit

from crane_server.errors import CraneError, KernelTimeout
from crane_server.kernels.remote_headers import headers_from_json
from crane_server.kernels.remote_server import TOKEN_ENV, Refused, ServerClient, ServerEndpoint
from crane_server.protocol.lsp import RemoteServer
from crane_server.settings import jupyter_servers

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SessionMatch:
    """A session of `endpoint` whose notebook path matches a document's path."""

    endpoint: ServerEndpoint
    kernel_id: str
    path: str


def _base(url: str) -> str:
    """The base URL without query or fragment, ending with / (how two spellings compare)."""
    parts = urlsplit(url.strip())
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/", "", ""))


def configured_servers(
    entries: Sequence[RemoteServer],
    *,
    config_path: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[list[ServerEndpoint], list[str]]:
    """The servers of the settings, then those only the config file lists; one warning per
    problem (a variable that is not set, an unreadable config file), never a token."""
    env = os.environ if environ is None else environ
    warnings: list[str] = []
    try:
        from_config = {_base(entry.url): entry for entry in jupyter_servers(config_path)}
    except CraneError as exc:
        warnings.append(f"crane: jupyter_servers of the config file ignored: {exc}")
        from_config = {}
    endpoints: list[ServerEndpoint] = []
    seen: set[str] = set()
    wanted = [(entry.url, entry.token_env, entry.headers_env) for entry in entries]
    wanted += [(url, None, None) for url in from_config]
    for url, token_env, headers_env in wanted:
        base = _base(url)
        if base in seen:
            continue
        seen.add(base)
        token = env.get(token_env) if token_env else None
        for variable, value in ((token_env, token), (headers_env, env.get(headers_env or ""))):
            if variable and not value:
                warnings.append(
                    f"crane: server {base}: the variable {variable} is not set in the language "
                    "server's environment"
                )
        config = from_config.get(base)
        token = token or (config.token if config else None) or env.get(TOKEN_ENV) or None
        try:
            raw = env.get(headers_env) if headers_env else None
            headers = headers_from_json(raw, headers_env or "") if raw and headers_env else None
            if headers is None:
                headers = config.headers if config else ()
            endpoints.append(ServerEndpoint.parse(base, token, headers))
        except CraneError as exc:
            warnings.append(f"crane: server ignored: {exc}")
    return endpoints, warnings


def same_path(document_path: str, session_path: str) -> bool:
    """The session's path (relative to its server's root) is a suffix of the document's path,
    compared part by part (`work/a.ipynb` matches `/home/ana/work/a.ipynb`, not `/x/ba.ipynb`)."""
    ours = PurePosixPath(document_path).parts
    theirs = PurePosixPath(session_path.lstrip("/")).parts
    return bool(theirs) and len(theirs) <= len(ours) and ours[-len(theirs) :] == theirs


def explain(endpoint: ServerEndpoint, error: CraneError) -> str:
    """One line for a server the language server could not ask."""
    if isinstance(error, Refused) and not endpoint.authenticated:
        return (
            f"the Jupyter server at {endpoint.display_url} needs a token: set the variable "
            f"named by tokenEnv (or {TOKEN_ENV}) in the language server's environment, or "
            "its jupyter_servers entry in the config file"
        )
    return str(error)


async def _sessions(endpoint: ServerEndpoint, timeout: float) -> dict[str, str] | None:
    async with ServerClient(endpoint, timeout=timeout) as client:
        try:
            return await asyncio.wait_for(client.sessions(), timeout)
        except asyncio.TimeoutError as exc:
            raise KernelTimeout(
                f"the Jupyter server at {endpoint.display_url} did not answer within {timeout:g} s"
            ) from exc


async def find_sessions(
    endpoints: Sequence[ServerEndpoint], document_path: str, *, timeout: float
) -> tuple[list[SessionMatch], list[str]]:
    """Every session of every server whose notebook is `document_path`, and one line per
    server that could not be asked (all servers are asked at once, each within `timeout`)."""
    results = await asyncio.gather(
        *(_sessions(endpoint, timeout) for endpoint in endpoints), return_exceptions=True
    )
    matches: list[SessionMatch] = []
    errors: list[str] = []
    for endpoint, result in zip(endpoints, results, strict=True):
        if isinstance(result, CraneError):
            errors.append(explain(endpoint, result))
            continue
        if isinstance(result, BaseException):
            raise result
        if result is None:
            log.info("%s has no sessions API: bind with crane.attachKernel", endpoint.display_url)
            continue
        for kernel_id, path in result.items():
            if same_path(document_path, path):
                matches.append(SessionMatch(endpoint, kernel_id, path))
    return matches, errors


async def _has_kernel(endpoint: ServerEndpoint, kernel_id: str, timeout: float) -> bool:
    async with ServerClient(endpoint, timeout=timeout) as client:
        try:
            await asyncio.wait_for(client.kernel(kernel_id), timeout)
        except (CraneError, asyncio.TimeoutError) as exc:
            log.info("%s: no kernel %s (%s)", endpoint.display_url, kernel_id, exc)
            return False
    return True


async def kernel_servers(
    endpoints: Sequence[ServerEndpoint], kernel_id: str, *, timeout: float
) -> list[ServerEndpoint]:
    """The servers that have kernel `kernel_id` (`GET /api/kernels/{id}`), all asked at once."""
    found = await asyncio.gather(*(_has_kernel(e, kernel_id, timeout) for e in endpoints))
    return [endpoint for endpoint, has in zip(endpoints, found, strict=True) if has]
