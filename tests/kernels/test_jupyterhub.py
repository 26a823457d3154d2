"""A JupyterHub user's server, reached through the Hub's proxy like any Jupyter Server.

The Hub runs on 127.0.0.1 from its own environment (`.hub-venv/`, made by scripts/install-dev
with configurable-http-proxy from npm beside it), with the dummy authenticator and the simple
local-process spawner. A service token starts user `ana`'s server through the Hub REST API and
asks for a token of hers; crane is then pointed at `http://127.0.0.1:PORT/user/ana/`.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from crane_server.cli import main
from crane_server.kernels.session import KernelSession
from tests.kernels.conftest import free_ports
from tests.kernels.test_remote import SETUP
from tests.lsp.helpers import (
    KERNEL_STATUS,
    SERVER,
    Recorder,
    has_code,
    initialize_params,
    open_notebook,
)

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]
HUB_PYTHON = Path(os.environ.get("CRANE_TEST_HUB_PYTHON") or ROOT / ".hub-venv" / "bin" / "python")
SERVICE_TOKEN = "crane-hub-service-token-7d2e4b19"  # the test's admin service
USER = "ana"
# The language server's environment: the Hub user's token goes into a config file of its own
# (written once the Hub gave it), never into the settings.
_LSP_HOME = Path(tempfile.mkdtemp(prefix="crane-lsp-hub-"))
(_LSP_HOME / "runtime").mkdir()
_LSP_ENV = {
    **os.environ,
    "CRANE_LLM_CONFIG": str(_LSP_HOME / "config.json"),
    "JUPYTER_RUNTIME_DIR": str(_LSP_HOME / "runtime"),
}
_LSP_ENV.pop("CRANE_JUPYTER_TOKEN", None)
LSP = ClientServerConfig(server_command=SERVER.server_command, server_env=_LSP_ENV)


def _proxy() -> str:
    local = ROOT / ".hub-venv" / "node_modules" / ".bin" / "configurable-http-proxy"
    found = str(local) if local.is_file() else shutil.which("configurable-http-proxy")
    assert found, "configurable-http-proxy missing: run scripts/install-dev"
    return found


@dataclass
class Hub:
    url: str  # the proxy's public URL
    user_url: str  # ana's server behind it
    user_token: str


def _hub_config(base: Path, ports: list[int]) -> str:
    public, hub, proxy_api = ports
    kernels = base / "share" / "kernels" / "crane-py"
    kernels.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec = {"argv": argv, "display_name": "crane-py", "language": "python"}
    (kernels / "kernel.json").write_text(json.dumps(spec))
    (base / "home").mkdir()
    services = [{"name": "crane-test", "api_token": SERVICE_TOKEN}]
    roles = [
        {"name": "crane-test", "scopes": ["admin:users", "admin:servers", "tokens"],
         "services": ["crane-test"]},
    ]  # fmt: skip
    extensions = "{'jupyter_server_terminals': False}"
    return "\n".join(
        [
            "c = get_config()  # noqa",
            f"c.JupyterHub.ip = '127.0.0.1'; c.JupyterHub.port = {public}",
            f"c.JupyterHub.hub_ip = '127.0.0.1'; c.JupyterHub.hub_port = {hub}",
            f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{proxy_api}'",
            f"c.ConfigurableHTTPProxy.command = [{_proxy()!r}]",
            "c.JupyterHub.authenticator_class = 'dummy'",
            "c.Authenticator.allow_all = True",
            "c.JupyterHub.spawner_class = 'simple'",
            f"c.SimpleLocalProcessSpawner.home_dir_template = '{base}/home/{{username}}'",
            f"c.Spawner.cmd = [{str(HUB_PYTHON.parent / 'jupyterhub-singleuser')!r}]",
            f"c.Spawner.args = ['--allow-root', \"--ServerApp.jpserver_extensions={extensions}\"]",
            f"c.Spawner.environment = {{'JUPYTER_PATH': '{base}/share'}}",
            f"c.JupyterHub.db_url = 'sqlite:///{base}/hub.sqlite'",
            f"c.JupyterHub.cookie_secret_file = '{base}/cookie_secret'",
            f"c.JupyterHub.pid_file = '{base}/hub.pid'",
            f"c.JupyterHub.services = {services!r}",
            f"c.JupyterHub.load_roles = {roles!r}",
        ]
    )


def _hub_api(url: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
    headers = {"Authorization": f"token {SERVICE_TOKEN}"}
    return httpx.request(method, f"{url}hub/api/{path}", headers=headers, timeout=30, **kwargs)


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    assert HUB_PYTHON.is_file(), f"{HUB_PYTHON} missing: run scripts/install-dev"
    base = tmp_path_factory.mktemp("hub")
    ports = free_ports(3)
    (base / "jupyterhub_config.py").write_text(_hub_config(base, ports))
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    process = subprocess.Popen(
        [str(HUB_PYTHON.parent / "jupyterhub"), "-f", str(base / "jupyterhub_config.py")],
        cwd=base, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{ports[0]}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "JupyterHub exited"
            try:
                if _hub_api(url, "GET", "").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "JupyterHub did not start in 60 s"
            time.sleep(0.2)
        assert _hub_api(url, "POST", f"users/{USER}").status_code == 201
        assert _hub_api(url, "POST", f"users/{USER}/server").status_code in (201, 202)
        while not _hub_api(url, "GET", f"users/{USER}").json()["servers"].get("", {}).get("ready"):
            assert time.monotonic() < deadline, "ana's server did not start in 60 s"
            time.sleep(0.2)
        response = _hub_api(url, "POST", f"users/{USER}/tokens", json={"note": "crane test"})
        assert response.status_code == 201, response.text
        running = Hub(url, f"{url}user/{USER}/", response.json()["token"])
        servers = [{"url": running.user_url, "token": running.user_token}]
        (_LSP_HOME / "config.json").write_text(json.dumps({"jupyter_servers": servers}))
        yield running
    finally:
        process.terminate()  # the Hub stops ana's server and the proxy on its way out
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


async def _setup(hub: Hub, kernel_id: str) -> None:
    session = await KernelSession.attach_remote(
        hub.user_url, kernel_id, token=hub.user_token, timeout=30
    )
    try:
        assert (await session.execute(SETUP, timeout=30)).status == "ok"
    finally:
        await session.close()


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _kernel_with_session(hub: Hub, path: str) -> str:
    """A kernel of ana's server holding `df`, serving the notebook `path`."""
    headers = {"Authorization": f"token {hub.user_token}"}
    response = httpx.post(
        hub.user_url + "api/kernels", json={"name": "crane-py"}, headers=headers, timeout=30
    )
    assert response.status_code == 201, response.text
    kernel_id = response.json()["id"]
    session = {"path": path, "type": "notebook", "name": path.rsplit("/", 1)[-1]}
    response = httpx.post(
        hub.user_url + "api/sessions",
        json={**session, "kernel": {"id": kernel_id}},
        headers=headers,
        timeout=30,
    )
    assert response.status_code == 201, response.text
    return kernel_id


def test_a_hub_users_server_lists_inspects_and_checks(
    hub: Hub, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kernel_id = _kernel_with_session(hub, "work/analysis.ipynb")
    asyncio.run(_setup(hub, kernel_id))

    monkeypatch.setenv("CRANE_JUPYTER_TOKEN", hub.user_token)
    code, out, err = _cli(capsys, "kernels", "--server", hub.user_url)
    assert code == 0 and kernel_id in out and "work/analysis.ipynb" in out, err
    remote = ["--server", hub.user_url, "--kernel", kernel_id]
    code, out, err = _cli(capsys, "inspect", *remote, "df")
    assert code == 0 and "columns=[price, qty]" in out, err
    cell = tmp_path / "cell.py"
    cell.write_text("total = df['prices'].sum()\n")
    code, out, err = _cli(capsys, "check", *remote, str(cell))
    assert code == 1 and "pandas-missing-column" in out, err
    assert hub.user_token not in out + err

    code, _, err = _cli(capsys, "kernels", "--server", hub.user_url, "--token", "wrong")
    assert code == 2 and "refused the token (HTTP 403)" in err
    monkeypatch.delenv("CRANE_JUPYTER_TOKEN")
    code, _, err = _cli(capsys, "kernels", "--server", hub.user_url)
    assert code == 2 and "needs a token" in err, err


@pytest_lsp.fixture(config=LSP, scope="module")
async def lsp(lsp_client: LanguageClient, hub: Hub) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    settings = {"debounceMs": 20, "servers": [{"url": hub.user_url}]}
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("visual-studio-code"), settings)
    )
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_the_language_server_binds_a_notebook_to_its_hub_session(
    lsp: LanguageClient, hub: Hub
) -> None:
    lsp_client = lsp
    recorder: Recorder = lsp_client.recorder  # type: ignore[attr-defined]
    kernel_id = await asyncio.to_thread(_kernel_with_session, hub, "hub/sales.ipynb")
    await _setup(hub, kernel_id)
    uri = "file:///home/ana/hub/sales.ipynb"
    cells = open_notebook(lsp_client, uri, [("code", "total = df['prices'].sum()")])
    found = await recorder.wait_for(lambda: has_code(lsp_client, cells[0], "pandas-missing-column"))
    assert found[0].severity == types.DiagnosticSeverity.Error
    status = [s for s in recorder.of(KERNEL_STATUS) if s["uri"] == uri][-1]
    assert status["kernel_id"] == kernel_id and status["reason"] == "notebook-path"
    assert f"user/{USER}/" in status["detail"]
    assert hub.user_token not in repr(recorder.messages) + repr(lsp_client.messages)
