"""JupyterLab: crane's jupyter-lsp spec and the notebook-to-kernel map of the server extension."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from tornado.websocket import websocket_connect

from crane_server.jupyter.spec import SPEC_KEY, crane_spec
from crane_server.protocol.jupyter_sessions import SessionMap
from tests.clients.jupyter_server_process import JupyterServerProcess

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServerProcess]:
    server = JupyterServerProcess(tmp_path_factory.mktemp("jupyter-server"))
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def wait_for(predicate: Callable[[], Any], timeout: float = 20.0, what: str = "") -> Any:
    """Return the first truthy value of predicate() before the deadline, else fail."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def read_map(server: JupyterServerProcess) -> SessionMap | None:
    files = list(server.runtime_dir.glob("crane-sessions-*.json"))
    if len(files) != 1:
        return None
    return msgspec.json.decode(files[0].read_bytes(), type=SessionMap)


def test_spec_validates_against_jupyter_lsp_schema() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # jupyter_lsp's traitlets usage
        from jupyter_lsp.schema import LANGUAGE_SERVER_SPEC_MAP

    specs = crane_spec()
    assert list(LANGUAGE_SERVER_SPEC_MAP.iter_errors(specs)) == []
    spec = specs[SPEC_KEY]
    assert spec["argv"][1:] == ["-m", "crane_server", "--stdio"]
    assert spec["requires_documents_on_disk"] is False
    assert spec["languages"] == ["python"]
    assert set(spec["config_schema"]["properties"]) >= {"crane.llm.model", "crane.debounce_ms"}


def _raw(session: Any, msg_type: str, parent: dict[str, Any]) -> list[bytes]:
    """A kernel message as the websocket connection receives it from zmq."""
    message = session.msg(msg_type, {"execution_state": "busy"}, parent=parent)
    return list(session.serialize(message, ident=[b"kernel.iopub"]))


@pytest.mark.parametrize(
    ("channel", "msg_type", "username", "hidden"),
    [
        pytest.param("iopub", "status", "crane-server", True, id="crane-probe-status"),
        pytest.param("iopub", "status", "lab-user", False, id="users-status"),
        pytest.param("iopub", "stream", "crane-server", False, id="not-a-status"),
        pytest.param("shell", "status", "crane-server", False, id="not-iopub"),
    ],
)
def test_crane_status_is_kept_from_the_browser(
    channel: str, msg_type: str, username: str, hidden: bool
) -> None:
    from jupyter_client.session import Session

    from crane_server.jupyter.quiet import hide_crane_status

    kernel = Session(key=b"secret")
    requester = Session(key=b"secret", username=username)
    parent = requester.msg("execute_request", {"code": "", "silent": True})

    class Connection:  # the part of ZMQChannelsWebsocketConnection the wrapper uses
        session = Session(key=b"secret")
        sent: list[str]

        def handle_outgoing_message(self, stream: Any, outgoing_msg: list[Any]) -> None:
            self.sent.append(stream)

    assert hide_crane_status(Connection) is True
    assert hide_crane_status(Connection) is False  # wrapped once
    connection = Connection()
    connection.sent = []
    connection.handle_outgoing_message(channel, _raw(kernel, msg_type, parent["header"]))
    assert connection.sent == ([] if hidden else [channel])


def test_wheel_enables_the_server_extension(tmp_path: Path) -> None:
    """A wheel install puts the extension's config into sys.prefix/etc/jupyter (data-files)."""
    import zipfile

    repo = Path(__file__).resolve().parents[2]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(repo),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    (wheel,) = tmp_path.glob("crane_server-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        configs = [
            n for n in archive.namelist() if n.endswith("jupyter_server_config.d/crane_server.json")
        ]
        assert configs and configs[0].split("/", 2)[1:] == [
            "data",
            "etc/jupyter/jupyter_server_config.d/crane_server.json",
        ], configs
        config = json.loads(archive.read(configs[0]))
    assert config == {"ServerApp": {"jpserver_extensions": {"crane_server.jupyter": True}}}


def test_lsp_status_lists_crane(jupyter: JupyterServerProcess) -> None:
    response = jupyter.client.get("/lsp/status")
    assert response.status_code == 200, response.text
    specs = response.json()["specs"]
    assert SPEC_KEY in specs, sorted(specs)
    listed = specs[SPEC_KEY]  # jupyter-lsp redacts argv in this listing
    assert listed["languages"] == ["python"]
    assert listed["display_name"] == crane_spec()[SPEC_KEY]["display_name"]
    assert listed["requires_documents_on_disk"] is False
    assert "crane.llm.privacy" in listed["config_schema"]["properties"]
    assert response.json()["sessions"][SPEC_KEY]["status"] == "not_started"


def test_session_maps_notebook_to_kernel(jupyter: JupyterServerProcess) -> None:
    notebook = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (jupyter.root_dir / "sub").mkdir(exist_ok=True)
    (jupyter.root_dir / "sub" / "analysis.ipynb").write_text(json.dumps(notebook))

    created = jupyter.client.post(
        "/api/sessions",
        json={
            "path": "sub/analysis.ipynb",
            "name": "analysis.ipynb",
            "type": "notebook",
            "kernel": {"name": "python3"},
        },
        timeout=60.0,
    )
    assert created.status_code == 201, created.text
    session_id = created.json()["id"]
    kernel_id = created.json()["kernel"]["id"]

    def mapped() -> Any:
        current = read_map(jupyter)
        if current is None:
            return None
        return next((s for s in current.sessions if s.session_id == session_id), None)

    entry = wait_for(mapped, what="the session in crane-sessions-*.json")
    assert entry.kernel_id == kernel_id
    assert entry.path == "sub/analysis.ipynb"
    assert entry.abs_path is not None
    assert Path(entry.abs_path).resolve() == (jupyter.root_dir / "sub" / "analysis.ipynb").resolve()
    assert entry.connection_file is not None
    connection_file = Path(entry.connection_file)
    assert connection_file.name == f"kernel-{kernel_id}.json"
    assert connection_file.parent.resolve() == jupyter.runtime_dir.resolve()
    assert json.loads(connection_file.read_text())["key"]

    served = jupyter.client.get("/crane/sessions")
    assert served.status_code == 200, served.text
    served_map = msgspec.json.decode(served.content, type=SessionMap)
    assert [(s.path, s.kernel_id) for s in served_map.sessions] == [
        ("sub/analysis.ipynb", kernel_id)
    ]

    runtime = str(jupyter.runtime_dir)
    discovered = subprocess.run(
        [sys.executable, "-m", "crane_server", "kernels", "--json", "--runtime-dir", runtime],
        capture_output=True,
        timeout=60,
        check=True,
    )
    records = {r["kernel_id"]: r for r in json.loads(discovered.stdout)}
    assert "notebook_path" in records[kernel_id], records[kernel_id]
    assert Path(records[kernel_id]["notebook_path"]).resolve() == Path(entry.abs_path).resolve()
    assert records[kernel_id]["mapped_by"] in ("crane-sessions", "server-sessions")

    deleted = jupyter.client.delete(f"/api/sessions/{session_id}", timeout=30.0)
    assert deleted.status_code == 204, deleted.text
    wait_for(
        lambda: (m := read_map(jupyter)) is not None and not m.sessions,
        what="the session to leave the map",
    )


def test_crane_sessions_requires_token(jupyter: JupyterServerProcess) -> None:
    anonymous = httpx.get(f"{jupyter.url}/crane/sessions", timeout=10.0)
    assert anonymous.status_code == 403
    wrong = httpx.get(f"{jupyter.url}/crane/sessions?token=wrong", timeout=10.0)
    assert wrong.status_code == 403


def _start_session(jupyter: JupyterServerProcess, path: str) -> tuple[str, str]:
    notebook = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (jupyter.root_dir / path).parent.mkdir(parents=True, exist_ok=True)
    (jupyter.root_dir / path).write_text(json.dumps(notebook))
    kernel = {"name": "python3"}
    body = {"path": path, "name": Path(path).name, "type": "notebook", "kernel": kernel}
    created = jupyter.client.post("/api/sessions", json=body, timeout=60.0)
    assert created.status_code == 201, created.text
    return created.json()["id"], created.json()["kernel"]["id"]


def _run_in_kernel(connection_file: str, code: str) -> None:
    """Run code in a kernel the Jupyter server owns, as a user's cell would."""
    from jupyter_client import BlockingKernelClient

    client = BlockingKernelClient(connection_file=connection_file)
    client.load_connection_file()
    client.start_channels()
    try:  # no wait_for_ready: the request waits in the kernel's queue until it is up
        reply = client.execute_interactive(code, timeout=60, output_hook=lambda msg: None)
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        client.stop_channels()


class LspOverJupyter:
    """An LSP client talking to crane through jupyter-lsp's websocket, as jupyterlab-lsp does."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.received: list[dict[str, Any]] = []
        self._next_id = 0

    async def send(self, method: str, params: Any, *, request: bool = False) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self._next_id += 1
            message["id"] = self._next_id
        await self.connection.write_message(json.dumps(message))
        return message.get("id")

    async def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float) -> Any:
        """Return the first message (seen or coming) that satisfies predicate."""
        deadline = time.monotonic() + timeout
        for message in self.received:
            if predicate(message):
                return message
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                methods = [m.get("method", m.get("id")) for m in self.received]
                raise AssertionError(f"timed out; received {methods}")
            raw = await asyncio.wait_for(self.connection.read_message(), remaining)
            assert raw is not None, "jupyter-lsp closed the websocket"
            message = json.loads(raw)
            self.received.append(message)
            if predicate(message):
                return message


async def test_virtual_document_binds_to_its_notebooks_kernel(
    jupyter: JupyterServerProcess,
) -> None:
    """Two notebooks, two kernels: crane binds the virtual document by the session map."""
    _, kernel_a = _start_session(jupyter, "e2e/a.ipynb")
    _, kernel_b = _start_session(jupyter, "e2e/b.ipynb")

    def both_mapped() -> Any:
        current = read_map(jupyter)
        ids = {s.kernel_id: s for s in current.sessions} if current else {}
        return ids if {kernel_a, kernel_b} <= ids.keys() else None

    sessions = wait_for(both_mapped, what="both sessions in the map")
    connection_a = sessions[kernel_a].connection_file
    code_a = "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2]})"
    await asyncio.to_thread(_run_in_kernel, connection_a, code_a)
    await asyncio.to_thread(_run_in_kernel, sessions[kernel_b].connection_file, "df = {'b': 1}")

    ws_url = f"ws://127.0.0.1:{jupyter.port}/lsp/ws/crane-server?token={jupyter.token}"
    connection = await asyncio.wait_for(websocket_connect(ws_url), 20)
    lsp = LspOverJupyter(connection)
    try:
        root = jupyter.root_dir.resolve().as_uri()
        init_id = await lsp.send(
            "initialize",
            {"processId": None, "rootUri": root, "capabilities": {}, "initializationOptions": {}},
            request=True,
        )
        await lsp.wait_for(lambda m: m.get("id") == init_id, timeout=60)
        await lsp.send("initialized", {})
        uri = f"{root}/.virtual_documents/e2e/a.ipynb"
        text = "import pandas as pd\n\n\ntotal = df['b'].sum()\n"
        document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        await lsp.send("textDocument/didOpen", {"textDocument": document})

        status = await lsp.wait_for(
            lambda m: (
                m.get("method") == "crane/kernelStatus"
                and m["params"]["uri"] == uri
                and m["params"].get("kernel_id") is not None
            ),
            timeout=60,
        )
        assert status["params"]["kernel_id"] == kernel_a
        assert status["params"]["reason"] == "notebook-path"

        published = await lsp.wait_for(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri
                and m["params"]["diagnostics"]
            ),
            timeout=60,
        )
        diagnostics = published["params"]["diagnostics"]
        assert [(d["range"]["start"]["line"], d["code"]) for d in diagnostics] == [
            (3, "pandas-missing-column")
        ]
    finally:
        connection.close()
