"""Kernels behind a real Jupyter Server (REST + websocket), started by these tests on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from jupyter_server.services.kernels.connection.base import (
    deserialize_msg_from_ws_v1,
    serialize_msg_to_ws_v1,
)

from crane_server.cli import main
from crane_server.errors import KernelNotFound
from crane_server.kernels.events import ExecutionStarted, KernelRestarted
from crane_server.kernels.remote_framing import V1_PROTOCOL, decode_v1, encode_v1
from crane_server.kernels.session import KernelSession
from tests.kernels.conftest import EventQueue, free_ports

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(60)]

TOKEN = "crane-remote-test-token-5f1c"
SETUP = "import pandas as pd\ndf = pd.DataFrame({'price': [1.0, 2.0], 'qty': [3, 4]})\nlimit = 7\n"
# Every extension found in the environment is switched off: the server starts in ~1 s.
EXTENSIONS_OFF = (
    "{'jupyterlab': False, 'jupyter_lsp': False, 'notebook_shim': False, "
    "'jupyter_server_terminals': False, 'panel.io.jupyter_server_extension': False, "
    "'crane_server.jupyter': False, 'notebook': False}"
)


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    verify: ssl.SSLContext | bool = True  # trusts the certificate of a TLS server

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"token {TOKEN}"}
        return httpx.request(
            method, self.url + path, headers=headers, timeout=30, verify=self.verify, **kwargs
        )

    def start_kernel(self) -> str:
        response = self.api("POST", "api/kernels", json={"name": "python3"})
        response.raise_for_status()
        kernel_id: str = response.json()["id"]
        return kernel_id


def _start_server(base: Path, *tls: str) -> Iterator[Server]:
    """A jupyter server on a free port with TOKEN; `tls`: certificate and key files."""
    runtime_dir, root_dir = base / "runtime", base / "root"
    runtime_dir.mkdir()
    root_dir.mkdir()
    (port,) = free_ports(1)
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime_dir)}
    env.pop("CRANE_JUPYTER_TOKEN", None)
    command = [
        sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root",
        f"--port={port}", "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root_dir}",
        f"--ServerApp.jpserver_extensions={EXTENSIONS_OFF}",
    ]  # fmt: skip
    if tls:
        command += [f"--ServerApp.certfile={tls[0]}", f"--ServerApp.keyfile={tls[1]}"]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    scheme = "https" if tls else "http"
    verify = ssl.create_default_context(cafile=tls[0]) if tls else True
    running = Server(f"{scheme}://127.0.0.1:{port}/", process, verify)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, "the Jupyter server exited"
            try:
                if running.api("GET", "api/status").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the Jupyter server did not start in 30 s"
            time.sleep(0.1)
        yield running
    finally:
        try:
            running.api("POST", "api/shutdown")
            process.wait(timeout=15)
        except Exception:
            process.kill()
            process.wait(timeout=15)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from _start_server(tmp_path_factory.mktemp("remote"))


async def _execute(url: str, kernel_id: str, code: str) -> int:
    """Run `code` as a user would, over crane's websocket transport; its execution count."""
    session = await KernelSession.attach_remote(url, kernel_id, token=TOKEN, timeout=30)
    try:
        outcome = await session.execute(code, timeout=30)
    finally:
        await session.close()
    assert outcome.status == "ok", outcome
    assert outcome.execution_count is not None
    return outcome.execution_count


async def _remote_negotiated(url: str, kernel_id: str) -> str | None:
    session = await KernelSession.attach_remote(url, kernel_id, token=TOKEN, timeout=30)
    try:
        assert session.state == "idle"
        return session._router.negotiated  # type: ignore[attr-defined,no-any-return]
    finally:
        await session.close()


@pytest.fixture(scope="module")
def kernel(server: Server) -> str:
    """A kernel started through REST, holding `df` and `limit`, bound to a notebook session."""
    kernel_id = server.start_kernel()
    asyncio.run(_execute(server.url, kernel_id, SETUP))
    session = {"path": "work/analysis.ipynb", "type": "notebook", "name": "analysis.ipynb"}
    server.api("POST", "api/sessions", json={**session, "kernel": {"id": kernel_id}})
    return kernel_id


@pytest.fixture(autouse=True)
def _no_env_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRANE_JUPYTER_TOKEN", raising=False)


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_kernels_lists_the_servers_kernels_with_their_notebook(
    server: Server, kernel: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(capsys, "kernels", "--server", server.url, "--token", TOKEN, "--json")
    assert code == 0, err
    records = {record["kernel_id"]: record for record in json.loads(out)}
    assert records[kernel]["name"] == "python3"
    assert records[kernel]["state"] == "idle"
    assert records[kernel]["notebook_path"] == "work/analysis.ipynb"
    code, out, err = _cli(capsys, "kernels", "--server", f"{server.url}lab?token={TOKEN}")
    assert code == 0, err
    assert kernel in out and "work/analysis.ipynb" in out
    assert TOKEN not in out + err


def test_token_from_the_environment(
    server: Server, kernel: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRANE_JUPYTER_TOKEN", TOKEN)
    code, out, _ = _cli(capsys, "kernels", "--server", server.url)
    assert code == 0 and kernel in out


def test_token_from_the_config_file(
    server: Server,
    kernel: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"jupyter_servers": [{"url": server.url, "token": TOKEN}]}))
    monkeypatch.setenv("CRANE_LLM_CONFIG", str(config))
    code, out, err = _cli(capsys, "kernels", "--server", server.url.rstrip("/"))
    assert code == 0 and kernel in out, err
    assert TOKEN not in out + err


@pytest.mark.parametrize("protocol", ["v1", "json"])
def test_inspect_a_remote_kernel(
    server: Server, kernel: str, capsys: pytest.CaptureFixture[str], protocol: str
) -> None:
    argv = ["inspect", "--server", server.url, "--kernel", kernel, "--token", TOKEN]
    code, out, err = _cli(capsys, *argv, "--ws-protocol", protocol, "df", "limit")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("df  pandas.DataFrame  shape=(2, 2)  columns=[price, qty]")
    assert lines[1] == "limit  int"


def test_check_predicts_a_missing_column_and_leaves_no_count(
    server: Server, kernel: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = asyncio.run(_execute(server.url, kernel, "pass"))
    cell = tmp_path / "cell.py"
    cell.write_text("total = df['prices'].sum()\n")
    argv = ["check", "--server", server.url, "--kernel", kernel, "--token", TOKEN, "--json"]
    code, out, err = _cli(capsys, *argv, str(cell))
    assert code == 1, err
    result = json.loads(out)
    assert result["crash"] is True
    assert [(f["code"], f["exception"]) for f in result["findings"]] == [
        ("pandas-missing-column", "KeyError")
    ], result
    code, out, _ = _cli(capsys, *argv[:-1], str(cell))
    assert code == 1 and "pandas-missing-column" in out
    # Nothing the checks sent counted as an execution: the next user cell is the next number.
    assert asyncio.run(_execute(server.url, kernel, "pass")) == before + 1


def test_a_wrong_token_is_one_line_and_exit_2(
    server: Server, kernel: str, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = "not-the-token-9a7e"
    for argv in (
        ["kernels", "--server", server.url, "--token", wrong],
        ["inspect", "--server", server.url, "--kernel", kernel, "--token", wrong, "df"],
    ):
        code, out, err = _cli(capsys, *argv)
        assert code == 2
        assert err.count("\n") == 1 and "refused the token (HTTP 403)" in err
        assert wrong not in out + err and TOKEN not in out + err
    code, _, err = _cli(capsys, "kernels", "--server", server.url)
    assert code == 2 and "needs a token" in err and "CRANE_JUPYTER_TOKEN" in err


def test_header_authentication_with_a_bearer_header(
    server: Server,
    kernel: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Jupyter Server takes `Authorization: Bearer <token>` too: no --token at all here.
    bearer = f"Authorization: Bearer {TOKEN}"
    code, out, err = _cli(capsys, "kernels", "--server", server.url, "--header", bearer)
    assert code == 0 and kernel in out, err
    cell = tmp_path / "cell.py"
    cell.write_text("total = df['prices'].sum()\n")
    argv = ["check", "--server", server.url, "--kernel", kernel, "--header", bearer]
    code, out, err = _cli(capsys, *argv, str(cell))
    assert code == 1 and "pandas-missing-column" in out, err
    # From the environment (a JSON object), over the websocket as well.
    monkeypatch.setenv("CRANE_JUPYTER_HEADERS", json.dumps({"Authorization": f"Bearer {TOKEN}"}))
    code, out, err = _cli(capsys, "inspect", "--server", server.url, "--kernel", kernel, "df")
    assert code == 0 and out.startswith("df  pandas.DataFrame"), err
    # From the config file's entry.
    monkeypatch.delenv("CRANE_JUPYTER_HEADERS")
    config = tmp_path / "config.json"
    entry = {"url": server.url, "headers": {"Authorization": f"Bearer {TOKEN}"}}
    config.write_text(json.dumps({"jupyter_servers": [entry]}))
    monkeypatch.setenv("CRANE_LLM_CONFIG", str(config))
    code, out, err = _cli(capsys, "kernels", "--server", server.url)
    assert code == 0 and kernel in out, err
    assert TOKEN not in out + err


def test_a_wrong_or_broken_header_is_one_line_without_its_value(
    server: Server, kernel: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "Bearer not-the-token-77c1"
    argv = ["inspect", "--server", server.url, "--kernel", kernel, "df"]
    code, out, err = _cli(capsys, *argv, "--header", f"Authorization: {wrong}")
    assert code == 2
    assert err.count("\n") == 1 and "refused the Authorization header (HTTP 403)" in err
    assert wrong not in out + err
    secret = "s3cret-header-value"
    monkeypatch.setenv("CRANE_JUPYTER_HEADERS", json.dumps({"X-Proxy": f"{secret}\r\nX-Evil: 1"}))
    code, out, err = _cli(capsys, "kernels", "--server", server.url)
    assert code == 2 and err.count("\n") == 1 and "X-Proxy holds a line break" in err
    assert secret not in out + err
    code, _, err = _cli(capsys, *argv, "--header", "no colon here")
    assert code == 2 and "--header takes 'Name: value'" in err


def test_an_unknown_or_deleted_kernel_is_a_clear_error(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    doomed = server.start_kernel()
    assert server.api("DELETE", f"api/kernels/{doomed}").status_code == 204
    argv = ["inspect", "--server", server.url, "--kernel", doomed, "--token", TOKEN, "x"]
    code, _, err = _cli(capsys, *argv)
    assert code == 2
    assert err.strip() == (
        f"crane-server: error: no kernel {doomed} on the Jupyter server at {server.url}"
    )


def test_an_unreachable_server_fails_within_the_timeout(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (port,) = free_ports(1)
    url = f"http://127.0.0.1:{port}/"
    cell = tmp_path / "cell.py"
    cell.write_text("x = 1\n")
    started = time.monotonic()
    argv = ["check", "--server", url, "--kernel", "k", "--timeout", "3", str(cell)]
    code, _, err = _cli(capsys, *argv)
    assert code == 2
    assert err.startswith(f"crane-server: error: cannot reach the Jupyter server at {url}")
    assert time.monotonic() - started < 5


def test_a_kernel_shut_down_under_an_attached_session_fails_requests_fast(
    server: Server,
) -> None:
    kernel_id = server.start_kernel()

    async def scenario() -> float:
        session = await KernelSession.attach_remote(server.url, kernel_id, token=TOKEN, timeout=30)
        try:
            assert session.state == "idle"
            await asyncio.to_thread(server.api, "DELETE", f"api/kernels/{kernel_id}")
            started = asyncio.get_running_loop().time()
            with pytest.raises(KernelNotFound, match=kernel_id):
                # The socket closes, the reconnect finds no kernel (404): no 20 s wait.
                for _ in range(50):
                    await session.bookkeeping("control", timeout=20)
                    await asyncio.sleep(0.1)
            return asyncio.get_running_loop().time() - started
        finally:
            await session.close()

    assert asyncio.run(scenario()) < 10


def _message() -> dict[str, Any]:
    header = {"msg_id": "m1", "msg_type": "execute_request", "session": "s", "date": "2026"}
    return {
        "header": header,
        "parent_header": {},
        "metadata": {"k": [1, 2]},
        "content": {"code": "x = 'é'"},
        "buffers": [b"\x00\x01", b"tail"],
    }


def test_v1_framing_matches_jupyter_servers_own() -> None:
    message = _message()
    channel, parts = deserialize_msg_from_ws_v1(encode_v1("shell", message))
    assert channel == "shell"
    assert [json.loads(part) for part in parts[:4]] == [
        message[key] for key in ("header", "parent_header", "metadata", "content")
    ]
    assert parts[4:] == message["buffers"]
    frame = serialize_msg_to_ws_v1([json.dumps(message[k]).encode() for k in (
        "header", "parent_header", "metadata", "content")] + message["buffers"], "iopub")  # fmt: skip
    assert decode_v1(frame) == ("iopub", message)


class Proxy:
    """A TCP relay in front of the server whose connections the test can cut."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.writers: list[asyncio.StreamWriter] = []
        self.listener: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self.listener = await asyncio.start_server(self._relay, "127.0.0.1", self.port)
        self.port = self.listener.sockets[0].getsockname()[1]

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.writers += [writer, up_writer]

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def cut(self) -> None:
        """Drop every open connection (the listener stays)."""
        for writer in self.writers:
            writer.transport.abort()
        self.writers.clear()

    async def stop(self) -> None:
        assert self.listener is not None
        self.listener.close()
        self.cut()
        await self.listener.wait_closed()


def _silent_sleep(seconds: float) -> dict[str, Any]:
    code = f"__import__('time').sleep({seconds})"
    return {"code": code, "silent": True, "store_history": False, "user_expressions": {}}


def test_a_dropped_socket_fails_the_request_in_flight_and_reconnects(
    server: Server, kernel: str
) -> None:
    async def scenario() -> None:
        proxy = Proxy(int(server.url.rsplit(":", 1)[1].strip("/")))
        await proxy.start()
        url = f"http://127.0.0.1:{proxy.port}/"
        session = await KernelSession.attach_remote(url, kernel, token=TOKEN, timeout=20)
        try:
            loop = asyncio.get_running_loop()
            in_flight = asyncio.ensure_future(
                session.request("shell", "execute_request", _silent_sleep(1.5), timeout=20)
            )
            await asyncio.sleep(0.3)
            proxy.cut()
            started = loop.time()
            with pytest.raises(KernelNotFound, match=r"websocket .* closed"):
                await in_flight
            assert loop.time() - started < 1.0
            # The router reconnects on its own: the next request is answered.
            reply = await session.bookkeeping("control", timeout=10)
            assert reply["status"] == "ok"
            assert len(proxy.writers) == 2  # one new relayed connection: the new websocket
            # The server goes away for good: a request fails with a clear error, no hang.
            await proxy.stop()
            started = loop.time()
            with pytest.raises(KernelNotFound, match=kernel):
                await session.bookkeeping("control", timeout=20)  # closed, or lost
            with pytest.raises(KernelNotFound, match=rf"lost the .*kernel {kernel}"):
                await session.bookkeeping("control", timeout=20)
            assert loop.time() - started < 5
        finally:
            await session.close()
            await proxy.stop()

    asyncio.run(scenario())


def test_a_restart_through_the_server_is_noticed(server: Server) -> None:
    kernel_id = server.start_kernel()

    async def scenario() -> None:
        session = await KernelSession.attach_remote(
            server.url, kernel_id, token=TOKEN, timeout=30, heartbeat=0.5
        )
        try:
            events = EventQueue(session)
            assert (await session.execute("fresh = 1", timeout=30)).status == "ok"
            assert "fresh" in (await session.inventory(timeout=10)).names
            response = await asyncio.to_thread(
                server.api, "POST", f"api/kernels/{kernel_id}/restart"
            )
            assert response.status_code == 200
            await events.next(KernelRestarted, timeout=30)
            assert "fresh" not in (await session.inventory(timeout=10)).names
        finally:
            await session.close()
            await asyncio.to_thread(server.api, "DELETE", f"api/kernels/{kernel_id}")

    asyncio.run(scenario())


def test_tls_server_over_https_and_wss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    servers = _start_server(tmp_path, str(cert), str(key))
    tls_server = next(servers)
    try:
        kernel_id = tls_server.start_kernel()
        argv = ["inspect", "--server", tls_server.url, "--kernel", kernel_id, "--token", TOKEN]
        # Not trusted: one clear line, no traceback.
        code, _, err = _cli(capsys, *argv)
        assert code == 2 and err.count("\n") == 1 and "CERTIFICATE_VERIFY_FAILED" in err
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # read by httpx and by Python's ssl
        code, _, err = _cli(capsys, *argv)
        assert code == 0, err  # REST over https, then the kernel over wss://
        assert asyncio.run(_remote_negotiated(tls_server.url, kernel_id)) == V1_PROTOCOL
    finally:
        next(servers, None)


def test_a_request_over_the_websocket_is_not_held_by_delayed_acks(
    server: Server, kernel: str
) -> None:
    """Jupyter Server writes small frames without TCP_NODELAY; without quick ACKs each request
    took ~44 ms (Linux's delayed ACK), with them ~4 ms."""

    async def median_ms() -> float:
        session = await KernelSession.attach_remote(server.url, kernel, token=TOKEN, timeout=30)
        try:
            samples = []
            for _ in range(21):
                started = time.perf_counter()
                await session.bookkeeping("control", timeout=5)
                samples.append((time.perf_counter() - started) * 1000)
            return sorted(samples)[10]
        finally:
            await session.close()

    assert asyncio.run(median_ms()) < 30


@pytest.mark.parametrize("kernel_id", ["", "../../api/shutdown", "a/b", "id?x=1"])
def test_a_kernel_id_that_is_not_one_is_refused(
    server: Server, capsys: pytest.CaptureFixture[str], kernel_id: str
) -> None:
    argv = ["inspect", "--server", server.url, "--kernel", kernel_id, "--token", TOKEN]
    code, _, err = _cli(capsys, *argv, "x")
    assert code == 2
    assert "not a kernel id" in err or "--server needs --kernel" in err


def test_a_busy_remote_kernel_gets_the_static_check_without_waiting(
    server: Server, kernel: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cell = tmp_path / "cell.py"
    # attached while busy: no names listed before the cell started, so only syntax is judged
    cell.write_text("print(undefined_name\n")
    argv = ["check", "--server", server.url, "--kernel", kernel, "--token", TOKEN, "--json"]

    async def scenario() -> tuple[int, str, str, float]:
        user = await KernelSession.attach_remote(server.url, kernel, token=TOKEN, timeout=30)
        try:
            running = asyncio.ensure_future(user.execute("import time; time.sleep(9)", timeout=30))
            events = EventQueue(user)
            await events.next(ExecutionStarted, timeout=10)
            started = time.monotonic()
            result = await asyncio.to_thread(_cli, capsys, *argv, str(cell))
            elapsed = time.monotonic() - started
            assert (await running).status == "ok"
            return (*result, elapsed)
        finally:
            await user.close()

    code, out, err, elapsed = asyncio.run(scenario())
    result = json.loads(out)
    assert result["engine"] == "static" and result["partial"] is True, (result, err)
    assert code == 1 and result["findings"][0]["exception"] == "SyntaxError"
    # Answered while the cell still ran: the attach gives the shell 5 s (a loaded machine
    # answers late, and an idle kernel must not be called busy), then the static check.
    assert elapsed < 8


# Jupyter Enterprise Gateway 3.3 pins jupyter_client 6 and jupyter_server 1: it cannot share
# this environment, so scripts/install-dev installs it in its own `.eg-venv` (or
# CRANE_TEST_EG_PYTHON names another Python that has it).
EG_PYTHON = os.environ.get("CRANE_TEST_EG_PYTHON") or str(
    Path(__file__).resolve().parents[2] / ".eg-venv" / "bin" / "python"
)


def start_gateway(base: Path) -> Iterator[Server]:
    """Enterprise Gateway on a free port with TOKEN, listing its kernels, whose kernelspec
    `crane-py` runs this Python's ipykernel."""
    assert Path(EG_PYTHON).is_file(), f"{EG_PYTHON} missing: run scripts/install-dev"
    spec = base / "kernels" / "crane-py"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "crane-py"}))
    (port,) = free_ports(1)
    env = {**os.environ, "JUPYTER_PATH": str(base), "JUPYTER_RUNTIME_DIR": str(base)}
    gateway_bin = Path(EG_PYTHON).parent / "jupyter-enterprisegateway"
    command = [
        str(gateway_bin), "--ip=127.0.0.1", f"--port={port}",
        f"--EnterpriseGatewayApp.auth_token={TOKEN}", "--EnterpriseGatewayApp.list_kernels=True",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    gateway = Server(f"http://127.0.0.1:{port}/", process)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, "Enterprise Gateway exited"
            try:
                if gateway.api("GET", "api/kernelspecs").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "Enterprise Gateway did not start in 30 s"
            time.sleep(0.1)
        yield gateway
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def start_gateway_kernel(gateway: Server) -> str:
    body = {"name": "crane-py", "env": {"KERNEL_USERNAME": "crane"}}  # EG refuses root
    response = gateway.api("POST", "api/kernels", json=body)
    assert response.status_code == 201, response.text
    kernel_id: str = response.json()["id"]
    return kernel_id


def test_enterprise_gateway(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for gateway in start_gateway(tmp_path):
        kernel_id = start_gateway_kernel(gateway)
        asyncio.run(_execute(gateway.url, kernel_id, SETUP))

        code, out, err = _cli(capsys, "kernels", "--server", gateway.url, "--token", TOKEN)
        assert code == 0 and kernel_id in out, err  # no sessions API: no notebook column
        remote = ["--server", gateway.url, "--kernel", kernel_id, "--token", TOKEN]
        code, out, err = _cli(capsys, "inspect", *remote, "df")
        assert code == 0 and "columns=[price, qty]" in out, err
        cell = tmp_path / "cell.py"
        cell.write_text("df['prices']\n")
        code, out, err = _cli(capsys, "check", *remote, str(cell))
        assert code == 1 and "pandas-missing-column" in out, err
        code, _, err = _cli(capsys, "kernels", "--server", gateway.url, "--token", "wrong")
        assert code == 2 and "refused the token (HTTP 401)" in err
