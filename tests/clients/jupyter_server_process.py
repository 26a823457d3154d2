"""A real `jupyter server` (or `jupyter lab`) subprocess on 127.0.0.1 with isolated Jupyter dirs.

The user-level config, data and runtime dirs are fresh; the environment's own config
(`sys.prefix/etc/jupyter`, where installs enable server extensions) is read as usual.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx

EXTENSIONS = {"jupyter_lsp": True, "crane_server.jupyter": True}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class JupyterServerProcess:
    """Start `python -m jupyter_server`; wait until its REST API answers."""

    def __init__(
        self,
        base: Path,
        *,
        app: str = "jupyter_server",
        extensions: dict[str, bool] | None = EXTENSIONS,
        args: tuple[str, ...] = (),
        user_settings: dict[str, dict[str, object]] | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.root_dir = base / "notebooks"
        self.runtime_dir = base / "runtime"
        for folder in (self.root_dir, self.runtime_dir, base / "config", base / "data"):
            folder.mkdir(parents=True, exist_ok=True)
        self.token = uuid.uuid4().hex
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        if extensions is not None:  # else: only what the environment's install enabled
            config = {"ServerApp": {"jpserver_extensions": extensions}}
            (base / "config" / "jupyter_server_config.json").write_text(json.dumps(config))
        for plugin, settings in (user_settings or {}).items():  # JupyterLab user settings
            package, name = plugin.rsplit(":", 1)
            path = (
                base / "config" / "lab" / "user-settings" / package / f"{name}.jupyterlab-settings"
            )
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(settings))
        env = dict(os.environ)
        env.update(
            JUPYTER_RUNTIME_DIR=str(self.runtime_dir),
            JUPYTER_CONFIG_DIR=str(base / "config"),
            JUPYTER_DATA_DIR=str(base / "data"),
            JUPYTER_PLATFORM_DIRS="1",
        )
        env.update(extra_env or {})
        argv = [
            sys.executable,
            "-m",
            app,
            "--no-browser",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root_dir}",
            *args,
        ]
        self.log_path = base / "jupyter-server.log"
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            argv, env=env, stdout=self._log, stderr=subprocess.STDOUT, cwd=self.root_dir
        )
        self.client = httpx.Client(
            base_url=self.url, headers={"Authorization": f"token {self.token}"}, timeout=10.0
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Poll /api/status until it answers; fail with the server log on timeout or exit."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter server exited:\n{self.log_text()}")
            try:
                if self.client.get("/api/status", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise TimeoutError(f"jupyter server not ready in {timeout}s:\n{self.log_text()}")

    def log_text(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        self.client.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self._log.close()
