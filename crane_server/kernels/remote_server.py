"""A Jupyter Server reached over HTTP(S): its address, its token, `/api/kernels` and `/api/sessions`.

Every httpx error is translated here: a refused token (401/403), an unreachable server and an
unknown kernel id are `KernelNotFound`, no answer in time is `KernelTimeout`. The token goes
only into the `Authorization: token ...` header (extra headers, `remote_headers.py`, may carry
other credentials); `display_url` (used in every message) never carries any of them.
"""

from __future__ import annotations

import logging
import os
import re
import ssl
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx
import msgspec

from crane_server.errors import KernelNotFound, KernelTimeout, SettingsError
from crane_server.kernels.remote_headers import (
    HEADERS_ENV,
    Headers,
    has_authorization,
    headers_from_json,
)

log = logging.getLogger(__name__)

TOKEN_ENV = "CRANE_JUPYTER_TOKEN"
# Kernel ids are UUIDs; anything else that could change the URL's path is refused.
_KERNEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


class NotOnServer(KernelNotFound):
    """The server answered 404 for a path (a kernel id it does not have, an API it lacks)."""


class Refused(KernelNotFound):
    """The server answered 401 or 403."""


class RemoteKernel(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One kernel of a Jupyter Server, as `crane-server kernels --server URL --json` lists it."""

    kernel_id: str
    name: str
    state: str
    connections: int | None = None
    last_activity: str | None = None
    notebook_path: str | None = None
    server_url: str


class ServerEndpoint(msgspec.Struct, frozen=True, kw_only=True):
    """The base URL of one Jupyter Server (ends with /) and the token to present, if any."""

    base_url: str
    token: str | None = None
    # Extra headers (see remote_headers.py): an `Authorization` among them replaces the token's.
    extra_headers: Headers = ()

    @classmethod
    def parse(
        cls, url: str, token: str | None = None, headers: Headers | None = None
    ) -> ServerEndpoint:
        """From a URL as Jupyter prints it; a `?token=` in it is used when no token is given.

        With neither, the token comes from the environment variable CRANE_JUPYTER_TOKEN, else
        from the config file's `jupyter_servers` entry with the same base URL. Headers: the
        given ones, else the JSON object in CRANE_JUPYTER_HEADERS, else the config entry's.
        """
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SettingsError(
                "--server takes an http:// or https:// URL of a Jupyter server, "
                f"got {_without_secrets(url)!r}"
            )
        query_token = next(iter(parse_qs(parts.query).get("token") or []), None)
        path = parts.path
        for suffix in ("/lab", "/tree", "/notebooks"):  # the page URLs Jupyter prints
            if path.rstrip("/").endswith(suffix):
                path = path.rstrip("/")[: -len(suffix)]
        base = urlunsplit((parts.scheme, parts.netloc, path.rstrip("/") + "/", "", ""))
        config_token, config_headers = _config_entry(base)
        chosen = token or query_token or os.environ.get(TOKEN_ENV) or config_token
        if headers is None:
            raw = os.environ.get(HEADERS_ENV)
            headers = headers_from_json(raw, HEADERS_ENV) if raw else config_headers
        return cls(base_url=base, token=chosen, extra_headers=headers)

    @property
    def display_url(self) -> str:
        """The base URL without credentials, for messages."""
        return _without_secrets(self.base_url)

    @property
    def headers(self) -> dict[str, str]:
        found = dict(self.extra_headers)
        if self.token and not has_authorization(self.extra_headers):
            found["Authorization"] = f"token {self.token}"
        return found

    @property
    def authenticated(self) -> bool:
        """Does crane present any credential (a token or an Authorization header)?"""
        return bool(self.token) or has_authorization(self.extra_headers)

    def websocket_url(self, kernel_id: str, session_id: str) -> str:
        """`ws(s)://…/api/kernels/{id}/channels?session_id=…` (the token goes in a header)."""
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        path = f"{parts.path}api/kernels/{kernel_id}/channels"
        return urlunsplit((scheme, parts.netloc, path, urlencode({"session_id": session_id}), ""))


def _config_entry(base_url: str) -> tuple[str | None, Headers]:
    """The token and headers of the config file's `jupyter_servers` entry for this base URL."""
    from crane_server.settings import jupyter_servers

    try:
        entries = jupyter_servers()
    except SettingsError as exc:
        log.info("config file: %s", exc)
        return None, ()
    for entry in entries:
        parts = urlsplit(entry.url.strip())
        if (
            urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/", "", ""))
            == base_url
        ):
            return entry.token, entry.headers
    return None, ()


def tls_context() -> ssl.SSLContext:
    """One verification rule for REST and websocket, httpx's: SSL_CERT_FILE, else SSL_CERT_DIR,
    else the certifi bundle."""
    if os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    if os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def _without_secrets(url: str) -> str:
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def refused(endpoint: ServerEndpoint, status: int) -> KernelNotFound:
    """The one-line error for a 401/403 answer."""
    if endpoint.authenticated:
        what = (
            "the token"
            if endpoint.token and not has_authorization(endpoint.extra_headers)
            else ("the Authorization header")
        )
        return KernelNotFound(
            f"the Jupyter server at {endpoint.display_url} refused {what} (HTTP {status})"
        )
    return KernelNotFound(
        f"the Jupyter server at {endpoint.display_url} needs a token (HTTP {status}): "
        f"give --token or set {TOKEN_ENV}"
    )


class ServerClient:
    """The REST side of one Jupyter Server; use as `async with ServerClient(endpoint, timeout)`."""

    def __init__(self, endpoint: ServerEndpoint, *, timeout: float) -> None:
        self.endpoint = endpoint
        self._timeout = timeout
        self._client = httpx.AsyncClient(
            timeout=timeout, headers=endpoint.headers, verify=tls_context()
        )

    async def __aenter__(self) -> ServerClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._client.aclose()

    async def get_json(self, path: str) -> Any:
        """GET `path` under the base URL; CraneErrors for every failure."""
        where = self.endpoint.display_url
        try:
            response = await self._client.get(self.endpoint.base_url + path)
        except httpx.TimeoutException as exc:
            raise KernelTimeout(
                f"the Jupyter server at {where} did not answer within {self._timeout:g} s"
            ) from exc
        except httpx.HTTPError as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise KernelNotFound(f"cannot reach the Jupyter server at {where}: {reason}") from exc
        if response.status_code in (401, 403):
            raise Refused(str(refused(self.endpoint, response.status_code)))
        if response.status_code == 404:
            raise NotOnServer(f"not found on the Jupyter server at {where}: /{path}")
        if response.status_code >= 400:
            raise KernelNotFound(
                f"the Jupyter server at {where} answered HTTP {response.status_code} for /{path}"
            )
        try:
            return response.json()
        except ValueError as exc:
            raise KernelNotFound(
                f"{where} answered /{path} with something other than JSON: is it a Jupyter server?"
            ) from exc

    async def kernel(self, kernel_id: str) -> dict[str, Any]:
        """`GET /api/kernels/{id}`; KernelNotFound naming the id when the server has no such kernel."""
        if not _KERNEL_ID.fullmatch(kernel_id) or ".." in kernel_id:
            raise SettingsError(f"not a kernel id: {kernel_id!r}")
        try:
            model = await self.get_json(f"api/kernels/{kernel_id}")
        except NotOnServer as exc:
            raise NotOnServer(
                f"no kernel {kernel_id} on the Jupyter server at {self.endpoint.display_url}"
            ) from exc
        if not isinstance(model, dict):
            raise KernelNotFound(f"unreadable kernel model for {kernel_id}")
        return model

    async def _explain_refused_listing(self) -> None:
        """A token that the kernelspecs API takes is fine: the server does not list kernels."""
        try:
            await self.get_json("api/kernelspecs")
        except KernelNotFound:
            return
        raise Refused(
            f"the server at {self.endpoint.display_url} takes the token but does not list its "
            "kernels (Enterprise Gateway lists them only with "
            "--EnterpriseGatewayApp.list_kernels=True); give the kernel id with --kernel"
        )

    async def sessions(self) -> dict[str, str] | None:
        """kernel id -> notebook path (relative to the server's root) from `GET /api/sessions`;
        None when the server has no sessions API (Enterprise Gateway answers 403 there while
        its kernelspecs take the token)."""
        try:
            sessions = await self.get_json("api/sessions")
        except (Refused, NotOnServer):
            try:
                await self.get_json("api/kernelspecs")
            except KernelNotFound:
                pass
            else:
                return None
            raise
        paths: dict[str, str] = {}
        for item in sessions if isinstance(sessions, list) else []:
            kernel = item.get("kernel") if isinstance(item, dict) else None
            path = item.get("path") if isinstance(item, dict) else None
            if isinstance(kernel, dict) and isinstance(kernel.get("id"), str) and path:
                paths[kernel["id"]] = str(path)
        return paths

    async def kernels(self) -> list[RemoteKernel]:
        """Every kernel of the server, with the notebook each serves (from `/api/sessions`)."""
        try:
            models = await self.get_json("api/kernels")
        except Refused:
            await self._explain_refused_listing()
            raise
        try:
            sessions = await self.get_json("api/sessions")
        except KernelNotFound as exc:
            # /api/kernels took the same token: a 403/404 here is a server without the
            # sessions API (Enterprise Gateway answers 403), so no notebook paths.
            log.debug("no sessions from %s: %s", self.endpoint.display_url, exc)
            sessions = []
        paths: dict[str, str] = {}
        for item in sessions if isinstance(sessions, list) else []:
            kernel = item.get("kernel") if isinstance(item, dict) else None
            path = item.get("path") if isinstance(item, dict) else None
            if isinstance(kernel, dict) and isinstance(kernel.get("id"), str) and path:
                paths[kernel["id"]] = str(path)
        records = []
        for model in models if isinstance(models, list) else []:
            if not isinstance(model, dict) or not isinstance(model.get("id"), str):
                continue
            connections = model.get("connections")
            records.append(
                RemoteKernel(
                    kernel_id=model["id"],
                    name=str(model.get("name", "")),
                    state=str(model.get("execution_state", "unknown")),
                    connections=connections if isinstance(connections, int) else None,
                    last_activity=model.get("last_activity"),
                    notebook_path=paths.get(model["id"]),
                    server_url=self.endpoint.display_url,
                )
            )
        return records
