"""Neovim as a person sees it: the real editor in a terminal (tmux), the warning on the screen.

The headless tests (test_nvim.py) read diagnostics through Lua; this one reads the screen:
the plugin as the docs configure it, a percent script whose cell uses a missing column, and
the Error in the sign column and the virtual text next to the line, then gone after the kernel
creates the column. The screen is kept as a PNG (docs/screenshots/ with
CRANE_UPDATE_SCREENSHOTS=1).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.clients.terminal_screenshot import render_png
from tests.clients.test_nvim import PLUGIN_DIR, find_nvim
from tests.conftest import RunningKernel

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(150)]

REPO = Path(__file__).resolve().parents[2]
SCRIPT = """\
# %%
import pandas as pd

# %%
churn = customers["monthly_charge"].mean()
"""
INIT = """\
vim.opt.runtimepath:prepend({plugin!r})
vim.opt.termguicolors = true
vim.opt.signcolumn = "yes"
vim.diagnostic.config({{ virtual_text = true, signs = true }})
require("crane").setup({{ cmd = {cmd}, settings = {{ debounce_ms = 50 }} }})
vim.api.nvim_create_autocmd("LspAttach", {{
  once = true,
  callback = function()
    vim.defer_fn(function() vim.cmd("CraneAttach " .. {connection!r}) end, 10)
  end,
}})
"""


def lua_list(items: list[str]) -> str:
    return "{ " + ", ".join(repr(item) for item in items) + " }"


class TmuxScreen:
    """One tmux session on its own socket running a command in a fixed-size window."""

    def __init__(self, tmp_path: Path, command: list[str], env: dict[str, str]) -> None:
        tmux = shutil.which("tmux")
        assert tmux, "tmux is needed for the screen test (scripts/install-dev installs it)"
        self.base = [tmux, "-S", str(tmp_path / "tmux.sock")]
        env_args = [item for key, value in env.items() for item in ("-e", f"{key}={value}")]
        subprocess.run(
            [*self.base, "new-session", "-d", "-x", "140", "-y", "18", *env_args, "--", *command],
            check=True,
            cwd=tmp_path,
            timeout=30,
        )

    def text(self, colours: bool = False) -> str:
        flags = ["-p", "-e"] if colours else ["-p"]
        done = subprocess.run(
            [*self.base, "capture-pane", *flags],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return done.stdout

    def wait_for(self, predicate: Callable[[str], bool], what: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.text()
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen}")

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.base, "send-keys", *keys], check=True, timeout=10)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=10)


SETUP = (
    "import pandas as pd\n"
    "customers = pd.DataFrame({'tenure': [1, 5], 'monthly_charges': [20.0, 35.5]})"
)


@contextlib.contextmanager
def neovim_on(tmp_path: Path, kernel: RunningKernel, text: str) -> Iterator[TmuxScreen]:
    """Real Neovim in tmux, editing a percent script bound to `kernel` through the plugin."""
    script = tmp_path / "churn.py"
    script.write_text(text)
    init = tmp_path / "init.lua"
    server = [sys.executable, "-m", "crane_server", "--stdio"]
    init.write_text(
        INIT.format(
            plugin=str(PLUGIN_DIR), cmd=lua_list(server), connection=str(kernel.connection_file)
        )
    )
    env = {
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "PATH": os.environ.get("PATH", ""),
    }
    screen = TmuxScreen(tmp_path, [find_nvim(), "-u", str(init), str(script)], env)
    try:
        yield screen
    finally:
        screen.close()


@pytest.fixture
def screen_setup(
    tmp_path: Path, kernel: RunningKernel
) -> Iterator[tuple[TmuxScreen, RunningKernel, Path]]:
    assert kernel.execute(SETUP)["status"] == "ok"
    with neovim_on(tmp_path, kernel, SCRIPT) as screen:
        yield screen, kernel, tmp_path


def test_the_warning_is_on_the_screen_and_leaves_when_fixed(
    screen_setup: tuple[TmuxScreen, RunningKernel, Path],
) -> None:
    screen, kernel, tmp_path = screen_setup
    shown = screen.wait_for(lambda s: "KeyError" in s, "the virtual text of the Error")
    line = next(row for row in shown.splitlines() if 'customers["monthly_charge"]' in row)
    assert "KeyError" in line, shown  # on the line that will crash, not elsewhere
    assert "Fix" not in line, shown  # beside the code: the first line only, never cut off
    # On the crashing line, the whole message: virtual lines below it, and :CraneExplain.
    row = next(i for i, row in enumerate(shown.splitlines()) if "monthly_charge" in row)
    screen.keys(f"{row + 1}G")
    shown = screen.wait_for(lambda s: "Fix:" in s, "the virtual lines of the whole message")
    assert "monthly_charges" in shown, shown  # the evidence: the closest existing column
    screen.keys(":CraneExplain", "Enter")
    floated = screen.wait_for(lambda s: "Diagnostics:" in s and "Fix:" in s, "the float")
    assert "crane: KeyError: 'monthly_charge'" in floated, floated
    assert "Fix: use 'monthly_charges'" in floated, floated
    float_png = tmp_path / "neovim-explain.png"
    render_png(screen.text(colours=True), float_png)
    if os.environ.get("CRANE_UPDATE_SCREENSHOTS"):
        shutil.copyfile(float_png, REPO / "docs" / "screenshots" / float_png.name)
    screen.keys("g", "g")  # moving the cursor closes the float
    png = tmp_path / "neovim-diagnostic.png"
    render_png(screen.text(colours=True), png)
    if os.environ.get("CRANE_UPDATE_SCREENSHOTS"):
        target = REPO / "docs" / "screenshots" / png.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(png, target)

    reply = kernel.execute("customers['monthly_charge'] = customers['monthly_charges']")
    assert reply["status"] == "ok"
    screen.wait_for(lambda s: "KeyError" not in s, "the Error to clear after the kernel ran")


def test_a_crash_ahead_is_on_the_screen_before_anything_runs(
    tmp_path: Path, kernel: RunningKernel
) -> None:
    # Today's frame has 'tenure'; only running the pending cell above first drops it.
    assert kernel.execute(SETUP)["status"] == "ok"
    ahead = SCRIPT.replace(
        'churn = customers["monthly_charge"].mean()',
        'customers = customers.drop(columns=["tenure"])\n\n# %%\nlongest = customers["tenure"].max()',
    )
    with neovim_on(tmp_path, kernel, ahead) as screen:
        shown = screen.wait_for(lambda s: "KeyError" in s, "the lookahead Error")
        line = next(row for row in shown.splitlines() if 'longest = customers["tenure"]' in row)
        assert "KeyError: 'tenure'" in line, shown
        drop = next(row for row in shown.splitlines() if "customers.drop" in row)
        assert "KeyError" not in drop, shown
    reply = kernel.execute("assert 'tenure' in customers.columns")
    assert reply["status"] == "ok"  # nothing ran: the column is still there
