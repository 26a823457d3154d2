"""VS Code for real: code-server's workbench in headless Chromium with the built crane .vsix.

A real ipykernel kernel (jupyter_client, signed connection file) holds `df`; code-server (VS Code
1.100, installed by clients/vscode/workbench/install.sh) opens a notebook with VS Code's built-in
ipynb support, the extension starts `python3 -m crane_server` pointed at that kernel's connection
file, and Debian's chromium + chromedriver (selenium) read what a person sees: the squiggle, the
Problems row, the hover, its clearing after the kernel runs the fix, the message when the kernel
dies. Latencies are measured with the page's clock (a MutationObserver and a keydown listener).
Set CRANE_SCREENSHOT_DIR (e.g. docs/screenshots) to keep the screenshots.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(240)]

ROOT = Path(__file__).resolve().parents[2]
WORKBENCH = ROOT / "clients" / "vscode" / ".workbench"
ENTRY = WORKBENCH / "node_modules" / "code-server" / "out" / "node" / "entry.js"
# CRANE_VSCODE_VSIX: test another build (e.g. an older release) against the same workbench.
VSIX = Path(os.environ.get("CRANE_VSCODE_VSIX", ROOT / "clients" / "vscode" / "crane-vscode.vsix"))
INSTALL_HINT = (
    "install it with clients/vscode/workbench/install.sh (clients/ci.sh and scripts/install-dev "
    "run it), and build the extension with `cd clients/vscode && npm ci && npm run package`"
)
CHROME_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,900",
)
SETUP = 'import pandas as pd; df = pd.DataFrame({"a": [1, 2]})'
CELL = 'df["b"]'
REPEATS = 5

# Records, with the page's clock, every change of the number of squiggles and the last keydown.
PAGE_JS = r"""
if (!window.__crane) {
  const count = () => document.querySelectorAll('.squiggly-error').length;
  const log = { changes: [], lastKey: 0 };
  let last = count();
  new MutationObserver(() => {
    const now = count();
    if (now !== last) { log.changes.push([Date.now(), now]); last = now; }
  }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
  document.addEventListener('keydown', () => { log.lastKey = Date.now(); }, true);
  window.__crane = log;
}
"""


def wait_until(predicate: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    """Return predicate()'s first truthy value; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.02)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def shots_dir(tmp: Path) -> Path:
    out = Path(os.environ.get("CRANE_SCREENSHOT_DIR", tmp / "shots"))
    out.mkdir(parents=True, exist_ok=True)
    return out


class Kernel:
    """A real ipykernel; `run` executes code as a user's execution (history, execution count)."""

    def __init__(self, runtime_dir: Path) -> None:
        from jupyter_client.manager import KernelManager

        self.manager = KernelManager(kernel_name="python3")
        self.manager.connection_file = str(runtime_dir / "kernel-crane-vscode-test.json")
        self.manager.start_kernel()
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def run(self, code: str) -> float:
        """Run `code`; return the wall-clock time (ms) at which the kernel reported idle."""
        msg_id = self.client.execute(code, store_history=True)
        reply = self.client.get_shell_msg(timeout=30)
        while reply["parent_header"].get("msg_id") != msg_id:  # e.g. wait_for_ready's kernel_info
            reply = self.client.get_shell_msg(timeout=30)
        assert reply["content"]["status"] == "ok", reply["content"]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            msg = self.client.get_iopub_msg(timeout=30)
            if (
                msg["parent_header"].get("msg_id") == msg_id
                and msg["msg_type"] == "status"
                and msg["content"]["execution_state"] == "idle"
            ):
                return time.time() * 1000
        raise AssertionError(f"no idle status after {code!r}")

    def kill(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Kernel]:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    k = Kernel(runtime)
    k.run(SETUP)
    yield k
    if k.manager.has_kernel:
        k.kill()


def code_server_ready() -> None:
    """Fail (never skip) when the workbench or the .vsix is missing, saying how to install them."""
    if not ENTRY.is_file():
        pytest.fail(
            f"the VS Code workbench (code-server) is not installed at {WORKBENCH}: {INSTALL_HINT}"
        )
    if not VSIX.is_file():
        pytest.fail(f"the extension is not built ({VSIX} missing): {INSTALL_HINT}")
    for tool in ("chromium", "chromedriver"):
        if shutil.which(tool) is None:
            pytest.fail(
                f"{tool} missing: apt-get install chromium chromium-driver (clients/ci.sh does)"
            )


@pytest.fixture
def workbench(tmp_path: Path, kernel: Kernel) -> Iterator[str]:
    """code-server on 127.0.0.1 (no auth, fresh profile) with the .vsix installed; yields its URL."""
    code_server_ready()
    user_data, extensions, workspace = (tmp_path / n for n in ("user-data", "extensions", "ws"))
    for d in (user_data / "User", extensions, workspace):
        d.mkdir(parents=True)
    env = {**os.environ, "HOME": str(tmp_path), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    base = [
        "node",
        str(ENTRY),
        "--user-data-dir",
        str(user_data),
        "--extensions-dir",
        str(extensions),
    ]
    installed = subprocess.run(
        [*base, "--install-extension", str(VSIX)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    settings = {
        "crane.serverPath": sys.executable,
        "crane.serverArgs": ["-m", "crane_server"],
        "crane.connectionFile": kernel.manager.connection_file,
        "crane.kernelHandOff": "discovery",
        "security.workspace.trust.enabled": False,
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": False,
        "telemetry.telemetryLevel": "off",
        "extensions.autoCheckUpdates": False,
        "extensions.ignoreRecommendations": True,
        "update.mode": "none",
        "git.enabled": False,
        "remote.autoForwardPorts": False,
        "workbench.editorAssociations": {"*.ipynb": "jupyter-notebook"},
    }
    (user_data / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": "c0",
                "metadata": {},
                "outputs": [],
                "source": [CELL],
            }
        ],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (workspace / "analysis.ipynb").write_text(json.dumps(notebook, indent=1))
    port = free_port()
    log = open(tmp_path / "code-server.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [*base, "--bind-addr", f"127.0.0.1:{port}", "--auth", "none", "--disable-telemetry",
         "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override",
         str(workspace)],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"

    def up() -> bool:
        try:
            with urllib.request.urlopen(url + "healthz", timeout=2) as r:
                return r.status == 200
        except OSError:
            return proc.poll() is not None  # exited: stop waiting, the assert below says so

    wait_until(up, "code-server to answer", timeout=60)
    assert proc.poll() is None, (tmp_path / "code-server.log").read_text()[-3000:]
    try:
        yield f"{url}?folder={workspace}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)
        log.close()


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    browser = webdriver.Chrome(
        service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options
    )
    browser.set_script_timeout(20)
    try:
        yield browser
    finally:
        browser.quit()


class Page:
    """The workbench page, driven by keys and the mouse as a person would."""

    def __init__(self, driver: Any, shots: Path) -> None:
        self.driver = driver
        self.shots = shots

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def texts(self, selector: str) -> list[str]:
        return list(
            self.js(f"return [...document.querySelectorAll({selector!r})].map(e => e.innerText)")
        )

    def squiggles(self) -> int:
        return int(self.js("return document.querySelectorAll('.squiggly-error').length"))

    def status(self) -> str:
        """What a failed wait should say: the crane status bar entry and the toasts."""
        bar = [t for t in self.texts(".statusbar-item") if "crane" in t]
        toasts = self.texts(".notifications-toasts .notification-list-item-message")
        return f"status bar: {bar}; notifications: {toasts}"

    def wait(self, predicate: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
        try:
            return wait_until(predicate, what, timeout)
        except AssertionError as err:
            self.screenshot("vscode-failure.png")
            raise AssertionError(f"{err}; {self.status()}") from None

    def keys(self, *keys: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.driver).send_keys(*keys).perform()

    def command(self, name: str) -> None:
        """Run a command from the command palette (F1)."""
        from selenium.webdriver.common.keys import Keys

        self.keys(Keys.F1)
        self.wait(lambda: self.texts(".quick-input-widget input"), "the command palette", 10)
        self.keys(name)
        self.wait(
            lambda: any(
                name.lower() in t.lower() for t in self.texts(".quick-input-list .monaco-list-row")
            ),
            f"'{name}' in the palette",
            10,
        )
        self.keys(Keys.ENTER)

    def changes(self) -> list[list[int]]:
        return list(self.js("return window.__crane.changes"))

    def since(self, start_ms: float, count_pred: Callable[[int], bool], what: str) -> float:
        """Wait for the page to record a squiggle change after start_ms; return its latency (ms)."""

        def seen() -> float | None:
            for at, count in self.changes():
                if at >= start_ms - 1 and count_pred(count):
                    return float(at) - start_ms
            return None

        value = self.wait(lambda: (v := seen()) is not None and (v,), what, 15)
        return max(0.0, value[0])

    def screenshot(self, name: str) -> Path:
        path = self.shots / name
        self.driver.save_screenshot(str(path))
        return path


def open_notebook(driver: Any, url: str, shots: Path) -> Page:
    page = Page(driver, shots)
    driver.get(url)
    page.wait(lambda: page.texts(".monaco-workbench .part.statusbar"), "the workbench", 60)
    from selenium.webdriver.common.by import By

    row = '.explorer-folders-view .monaco-list-row[aria-label^="analysis.ipynb"]'
    page.wait(
        lambda: driver.find_elements(By.CSS_SELECTOR, row), "analysis.ipynb in the Explorer", 30
    )

    def cell_shown() -> bool:
        return any(CELL in t for t in page.texts(".notebook-editor .cell-editor-container"))

    # Opened before the built-in ipynb extension registered its notebook type, the file shows as
    # JSON text: close that editor and open the file again (a person would do the same).
    for attempt in range(3):
        driver.find_element(By.CSS_SELECTOR, row).click()
        try:
            wait_until(cell_shown, "the notebook editor", 15)
            break
        except AssertionError:
            if attempt == 2:
                page.screenshot("vscode-failure.png")
                raise
            page.command("View: Close All Editors")
    page.js(PAGE_JS)
    return page


def test_vscode_shows_crane_warnings_in_the_real_workbench(
    workbench: str, driver: Any, kernel: Kernel, tmp_path: Path
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = open_notebook(driver, workbench, shots_dir(tmp_path))

    # The squiggle on the crashing cell: the extension started the server and it found the kernel.
    page.wait(lambda: page.squiggles() > 0, "crane's squiggle on the cell that reads df['b']", 60)
    squiggle = driver.find_element(By.CSS_SELECTOR, ".notebook-editor .squiggly-error")
    assert squiggle.is_displayed()
    page.screenshot("vscode-squiggle.png")

    # The Problems panel lists it with the KeyError.
    page.command("View: Focus Problems")
    rows = page.wait(
        lambda: [t for t in page.texts(".markers-panel .monaco-list-row") if "KeyError" in t],
        "a Problems row with the KeyError",
    )
    assert any("'b'" in row for row in rows), rows
    page.screenshot("vscode-problems.png")
    page.command("View: Hide Panel")

    # The hover over the squiggle shows crane's text.
    ActionChains(driver).move_to_element(squiggle).perform()
    hover = page.wait(
        lambda: [t for t in page.texts(".monaco-hover") if "KeyError" in t],
        "a hover with crane's KeyError text",
    )
    assert any("crane" in t for t in hover), hover
    page.wait(
        lambda: page.js(
            "return [...document.querySelectorAll('.monaco-hover')]"
            ".every(h => h.getAnimations({subtree: true}).length === 0)"
        ),
        "the hover's fade-in to end (for the screenshot)",
        5,
    )
    page.screenshot("vscode-hover.png")
    ActionChains(driver).move_by_offset(0, 300).perform()

    # Kernel execution end -> squiggle cleared / shown, measured in the page.
    appear: list[float] = []
    for _ in range(REPEATS):
        end = kernel.run('df["b"] = 0')
        page.since(end, lambda n: n == 0, "the squiggle to clear after the kernel ran the fix")
        assert page.squiggles() == 0
        end = kernel.run('df = df.drop(columns="b")')
        appear.append(
            page.since(end, lambda n: n > 0, "the squiggle after the kernel dropped column b")
        )

    # Edit -> squiggle: type 'a' (a column df has) then 'b' again, as a user would.
    page.wait(lambda: page.squiggles() > 0, "the squiggle before the edits")
    driver.find_element(
        By.CSS_SELECTOR, ".notebook-editor .cell-editor-container .view-lines"
    ).click()
    edit: list[float] = []
    for _ in range(REPEATS):
        page.keys(Keys.CONTROL, Keys.END)
        page.keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT, Keys.BACKSPACE, "a")
        page.since(
            page.js("return window.__crane.lastKey"),
            lambda n: n == 0,
            "the squiggle to clear on df['a']",
        )
        page.keys(Keys.BACKSPACE)
        page.keys("b")
        typed = float(page.js("return window.__crane.lastKey"))
        edit.append(page.since(typed, lambda n: n > 0, "the squiggle after typing df['b'] again"))
    report = {
        "execution_end_to_squiggle_ms": {
            "p50": percentile(appear, 0.5),
            "p95": percentile(appear, 0.95),
            "all": appear,
        },
        "edit_to_squiggle_ms": {
            "p50": percentile(edit, 0.5),
            "p95": percentile(edit, 0.95),
            "all": edit,
        },
    }
    (page.shots / "vscode-latency.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report))

    # The kernel dies: the squiggle goes away and crane says the kernel is gone.
    kernel.kill()
    page.wait(
        lambda: (
            any("is gone" in t for t in page.texts(".notifications-toasts"))
            and any("crane" in t and "dead" in t for t in page.texts(".statusbar-item"))
        ),
        "the 'kernel is gone' message and a dead kernel in the status bar",
        40,
    )
    page.screenshot("vscode-kernel-gone.png")
