"""Discovery in a runtime dir: live kernels verified, stale files marked, notebooks mapped."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from crane_server.kernels.discovery import discover_kernels
from crane_server.protocol.jupyter_sessions import NotebookSession, SessionMap
from tests.conftest import RunningKernel
from tests.kernels.conftest import (
    JupyterServer,
    copy_connection_file,
    write_dead_connection_file,
)

pytestmark = pytest.mark.kernel


async def test_live_stale_and_jupyter_session(shared_kernel: RunningKernel, tmp_path: Path) -> None:
    live = copy_connection_file(shared_kernel.connection_file, tmp_path / "kernel-live.json")
    mapped = copy_connection_file(
        shared_kernel.connection_file,
        tmp_path / "kernel-mapped.json",
        jupyter_session="/work/notebooks/analysis.ipynb",
    )
    stale = write_dead_connection_file(
        tmp_path / "kernel-stale.json", jupyter_session="/gone.ipynb"
    )
    (tmp_path / "kernel-broken.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "jpserver-1.json").write_text("{}", encoding="utf-8")  # a server without url

    records = {r.kernel_id: r for r in await discover_kernels(tmp_path, timeout=1.0)}

    assert set(records) == {"live", "mapped", "stale", "broken"}
    assert records["live"].stale is False
    assert records["live"].state == "idle"
    assert records["live"].connection_file == str(live)
    assert records["live"].pid is not None
    assert records["live"].language == "python"
    assert (records["live"].implementation or "").startswith("ipython")
    assert records["live"].notebook_path is None
    assert records["mapped"].notebook_path == "/work/notebooks/analysis.ipynb"
    assert records["mapped"].mapped_by == "jupyter_session"
    assert records["mapped"].connection_file == str(mapped)
    assert records["stale"].stale is True
    assert records["stale"].state == "stale"
    assert records["stale"].notebook_path is None  # a stale file maps nothing
    assert records["stale"].connection_file == str(stale)
    assert records["broken"].stale is True
    assert "malformed" in (records["broken"].error or "")


async def test_empty_or_missing_runtime_dir(tmp_path: Path) -> None:
    assert await discover_kernels(tmp_path) == []
    assert await discover_kernels(tmp_path / "missing") == []


async def test_server_sessions_map_notebooks(jupyter_server: JupyterServer) -> None:
    (jupyter_server.root_dir / "sub").mkdir()
    response = jupyter_server.api(
        "POST",
        "api/sessions",
        json={"path": "sub/nb.ipynb", "type": "notebook", "kernel": {"name": "python3"}},
    )
    assert response.status_code == 201, response.text
    kernel_id = response.json()["kernel"]["id"]

    records = await discover_kernels(jupyter_server.runtime_dir, timeout=10.0)

    by_id = {record.kernel_id: record for record in records}
    assert kernel_id in by_id
    record = by_id[kernel_id]
    assert record.stale is False
    assert record.notebook_path == str(jupyter_server.root_dir / "sub" / "nb.ipynb")
    assert record.mapped_by == "server-sessions"
    assert record.server_url == jupyter_server.url
    assert Path(record.connection_file).name == f"kernel-{kernel_id}.json"


async def test_wrong_token_leaves_kernels_unmapped(
    jupyter_server: JupyterServer, tmp_path: Path
) -> None:
    server_file = next(jupyter_server.runtime_dir.glob("jpserver-*.json"))
    text = server_file.read_text(encoding="utf-8").replace(jupyter_server.token, "wrong-token")
    (tmp_path / server_file.name).write_text(text, encoding="utf-8")
    for connection_file in jupyter_server.runtime_dir.glob("kernel-*.json"):
        copy_connection_file(connection_file, tmp_path / connection_file.name, jupyter_session="")
    records = await discover_kernels(tmp_path, timeout=10.0)
    assert records, "the server's kernel should still be found"
    assert all(record.mapped_by is None and not record.stale for record in records)


async def test_crane_session_map_file(shared_kernel: RunningKernel, tmp_path: Path) -> None:
    copy_connection_file(shared_kernel.connection_file, tmp_path / "kernel-k1.json")
    session_map = SessionMap(
        server_pid=1,
        server_url="http://127.0.0.1:1/",
        root_dir="/srv/notebooks",
        sessions=[NotebookSession(session_id="s1", path="a/b.ipynb", kernel_id="k1")],
    )
    (tmp_path / "crane-sessions-1.json").write_bytes(msgspec.json.encode(session_map))
    (record,) = await discover_kernels(tmp_path, timeout=2.0)
    assert record.kernel_id == "k1"
    assert record.notebook_path == "/srv/notebooks/a/b.ipynb"
    assert record.mapped_by == "crane-sessions"
    assert record.server_url == "http://127.0.0.1:1/"
