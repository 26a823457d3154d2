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
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from crane_server.cli import main
from crane_server.kernels.session import KernelSession
from tests.kernels.conftest import free_ports
from tests.kernels.test_remote import SETUP

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]
HUB_PYTHON = Path(os.environ.get("CRANE_TEST_HUB_PYTHON") or ROOT / ".hub-venv" / "bin" / "python")
SERVICE_TOKEN = "crane-hub-service-token-7d2e4b19"  # the test's admin service
USER = "ana"


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
        yield Hub(url, f"{url}user/{USER}/", response.json()["token"])
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


def test_a_hub_users_server_lists_inspects_and_checks(
    hub: Hub, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    headers = {"Authorization": f"token {hub.user_token}"}
    response = httpx.post(
        hub.user_url + "api/kernels", json={"name": "crane-py"}, headers=headers, timeout=30
    )
    assert response.status_code == 201, response.text
    kernel_id = response.json()["id"]
    session = {"path": "work/analysis.ipynb", "type": "notebook", "name": "analysis.ipynb"}
    response = httpx.post(
        hub.user_url + "api/sessions",
        json={**session, "kernel": {"id": kernel_id}},
        headers=headers,
        timeout=30,
    )
    assert response.status_code == 201, response.text
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
