"""crane's own JupyterLab 4 / Notebook 7 extension, next to jupyterlab-lsp, in headless Chromium.

The prebuilt extension (clients/jupyterlab/labextension, installed into share/jupyter/
labextensions as a wheel or clients/ci.sh puts it) is loaded by a real `jupyter lab` and a
real `jupyter notebook` (Notebook 7). A user runs the first cell, sees the underline on the
next one, reads the toolbar's status item, clicks "Explain" (the LLM, an OpenAI-compatible
server on 127.0.0.1 started by the test) and applies the quick fix from the cell's context
menu; the fix lands in the cell and the underline clears.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.clients.jupyter_server_process import JupyterServerProcess
from tests.clients.test_jupyterlab_ui import (
    browser_binaries,
    start_chromium,
    wait_until,
    write_notebook,
)
from tests.llm.fake_openai import FakeOpenAI, verdict

pytestmark = [pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(300)]

NOTEBOOK = "churn.ipynb"
CELLS = [
    'import pandas as pd\ndf = pd.DataFrame({"monthly_charges": [70.5, 99.9], "tenure": [1, 2]})',
    'total = df["monthly_chargs"].sum()',
    "print(total)",
]
FIXED = "total = df['monthly_charges'].sum()"  # the server's replacement of the literal
LLM_AGREES = json.dumps(
    {
        "crash": True,
        "reasoning": "df has no column 'monthly_chargs'",
        "diagnoses": [
            {
                "exception": "KeyError",
                "line": 1,
                "cause": "df has no column 'monthly_chargs'; it has 'monthly_charges'",
                "fix": FIXED,
            }
        ],
    }
)
LLM_VERDICT = json.dumps(
    {
        "crash": True,
        "reasoning": "print is shadowed by a number in this kernel",
        "diagnoses": [
            {
                "exception": "TypeError",
                "line": 1,
                "cause": "'int' object is not callable: print was rebound",
                "fix": "del print",
            }
        ],
    }
)
LAB_SETTINGS: dict[str, dict[str, object]] = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyter-lsp/jupyterlab-lsp:plugin": {"language_servers": {"crane-server": {"priority": 100}}},
}
# The page's view of the notebook: cells, underlines, the status item, toasts, the menu.
PAGE_JS = r"""
const cells = () => [...document.querySelectorAll(".jp-Notebook .jp-Cell")];
const cell = (i) => cells()[i];
return {
  count: cells().length,
  red: [...cells()].map((c) => !!c.querySelector(".cm-lintRange-error")),
  warn: [...cells()].map((c) => !!c.querySelector(".cm-lintRange-warning")),
  text: [...cells()].map((c) => [...c.querySelectorAll(".cm-line")].map((l) => l.textContent).join("\n")),
  prompt: [...cells()].map((c) => { const p = c.querySelector(".jp-InputPrompt"); return p ? p.textContent.trim() : null; }),
  status: (document.querySelector(".crane-status:not(.crane-status-bar)") || {}).textContent || null,
  statusTitle: (document.querySelector(".crane-status:not(.crane-status-bar)") || {}).title || null,
  statusBar: (document.querySelector(".jp-StatusBar-Widget .crane-status-bar") || {}).textContent || null,
  toasts: [...document.querySelectorAll(".Toastify__toast")].map((t) => t.textContent),
  menu: [...document.querySelectorAll(".lm-Menu .lm-Menu-itemLabel")].map((l) => l.textContent),
};
"""


def labextension_listed() -> str:
    """`jupyter labextension list` as a user runs it."""
    listed = subprocess.run(
        [sys.executable, "-m", "jupyter", "labextension", "list"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return listed.stdout + listed.stderr


@pytest.fixture(scope="module")
def model() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(params=["jupyterlab", "notebook"], scope="module")
def front_end(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, model: FakeOpenAI
) -> Iterator[tuple[str, JupyterServerProcess]]:
    browser_binaries()
    app = str(request.param)
    base = tmp_path_factory.mktemp(app)
    server = JupyterServerProcess(
        base,
        app=app,
        extensions=None,  # only what the environment's install enabled
        user_settings=LAB_SETTINGS,
        extra_env={
            "CRANE_LLM_BASE_URL": model.base_url,
            "CRANE_LLM_API_STYLE": "chat",
            "CRANE_LLM_MODEL": "local-model",
            "CRANE_LLM_API_KEY": "sk-local-test",
        },
    )
    try:
        write_notebook(server.root_dir / NOTEBOOK, CELLS)
        server.wait_ready(timeout=90)
        yield app, server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def driver(front_end: tuple[str, JupyterServerProcess]) -> Iterator[Any]:
    browser = start_chromium(front_end[1].root_dir.parent / "chromium-profile", console_log=True)
    try:
        yield browser
    finally:
        browser.quit()


class Page:
    def __init__(self, driver: Any, shots: Path, app: str) -> None:
        self.driver = driver
        self.shots = shots
        self.app = app
        self.toasts: list[str] = []

    def view(self) -> dict[str, Any]:
        """The page now; `toasts` holds every notification seen so far (they close by themselves)."""
        view = dict(self.driver.execute_script(PAGE_JS))
        self.toasts.extend(t for t in view["toasts"] if t not in self.toasts)
        view["toasts"] = list(self.toasts)
        return view

    def wait(self, predicate: Any, what: str, timeout: float = 30.0) -> dict[str, Any]:
        """The page's view once `predicate(view)` holds; fail with the view after `timeout`."""

        def seen() -> dict[str, Any] | None:
            view = self.view()
            return view if predicate(view) else None

        try:
            return dict(wait_until(seen, what, timeout))
        except AssertionError as error:
            self.screenshot(f"{self.app}-extension-failure.png")
            console = [entry.get("message") for entry in self.driver.get_log("browser")][-30:]
            raise AssertionError(
                f"{error}; the page: {self.view()}; the browser console: {console}"
            ) from None

    def cell(self, index: int) -> Any:
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-Cell")[index]

    def select(self, index: int) -> None:
        """Click into the cell's editor, as a user does before asking about it."""
        from selenium.webdriver.common.by import By

        self.cell(index).find_element(By.CSS_SELECTOR, ".cm-content").click()
        wait_until(
            lambda: self.driver.execute_script(
                "return document.querySelectorAll('.jp-Notebook .jp-Cell')[arguments[0]]"
                ".classList.contains('jp-mod-active')",
                index,
            ),
            f"cell {index + 1} to be the active cell",
        )

    def run(self, index: int) -> None:
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        self.select(index)
        ActionChains(self.driver).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(
            Keys.SHIFT
        ).perform()

    def click_toolbar(self, css: str) -> None:
        from selenium.webdriver.common.by import By

        self.driver.find_element(By.CSS_SELECTOR, f"{css} button, {css}").click()

    def context_menu(self, index: int, label: str) -> None:
        """Right-click the cell and click the menu item `label`."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By

        ActionChains(self.driver).context_click(self.cell(index)).perform()
        self.wait(lambda v: label in v["menu"], f"the context menu to offer {label!r}", 10)
        items = self.driver.find_elements(By.CSS_SELECTOR, ".lm-Menu .lm-Menu-item")
        for item in items:
            if item.text.strip() == label:
                item.click()
                return
        raise AssertionError(f"no menu item {label!r}: {[i.text for i in items]}")

    def hover_tooltip(self, index: int) -> str:
        """Hover the cell's underline; the lint tooltip's text."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By

        underline = self.cell(index).find_element(By.CSS_SELECTOR, ".cm-lintRange-error")
        ActionChains(self.driver).move_to_element(underline).perform()
        return str(
            wait_until(
                lambda: self.driver.execute_script(
                    "return [...document.querySelectorAll('.cm-tooltip-lint, .cm-tooltip-hover')]"
                    ".map(e => e.textContent).join(' ')"
                ),
                "the underline's tooltip",
            )
        )

    def screenshot(self, name: str) -> Path:
        path = self.shots / name
        self.driver.save_screenshot(str(path))
        return path


def test_the_extension_is_listed_by_jupyter_labextension_list() -> None:
    listed = labextension_listed()
    line = next((row for row in listed.splitlines() if "crane-jupyterlab" in row), None)
    assert line is not None, listed
    assert "enabled" in line and "OK" in line, line


def test_status_explain_and_quick_fix_in_the_real_front_end(
    front_end: tuple[str, JupyterServerProcess], driver: Any, model: FakeOpenAI, tmp_path: Path
) -> None:
    app, server = front_end
    shots = Path(os.environ.get("CRANE_SCREENSHOT_DIR") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    path = "lab/tree" if app == "jupyterlab" else "notebooks"
    driver.get(f"{server.url}/{path}/{NOTEBOOK}?token={server.token}")
    page = Page(driver, shots, app)
    page.wait(lambda v: v["count"] == len(CELLS), f"{app} to show the notebook", 90)

    # The status item, before any cell ran: crane bound the kernel; no dry run yet.
    view = page.wait(
        lambda v: v["status"] and "kernel idle" in v["status"], "the status item to say idle", 90
    )
    assert "dry run after the first run" in view["status"], view["status"]
    assert "kernel" in (view["statusTitle"] or ""), view["statusTitle"]

    # Run the first cell: the next one reads a column that is not there.
    page.run(0)
    page.wait(lambda v: v["red"][1], "the underline on cell 2", 60)
    view = page.wait(
        lambda v: "kernel idle · dry run on" in (v["status"] or ""),
        "the status item to say the dry run is on after the first run",
    )
    assert not view["red"][0] and not view["red"][2], view
    if app == "jupyterlab":  # its status bar repeats the current notebook's item
        page.wait(lambda v: v["statusBar"] == v["status"], "the status bar to show crane's status")
    page.screenshot(f"{app}-extension-status.png")

    # Explain with the LLM, from the toolbar button, about the selected cell. On cell 2 the
    # model agrees with crane's Error, so no second warning is added.
    model.reset()
    model.enqueue(verdict(LLM_AGREES), verdict(LLM_VERDICT))
    page.select(1)
    page.click_toolbar(".crane-explain-button")
    view = page.wait(
        lambda v: any("cell 2 crashes, as crane's warning on it says" in t for t in v["toasts"]),
        "the LLM's answer about cell 2 in a notification",
        60,
    )
    assert len(model.requests) == 1, [r.path for r in model.requests]
    asked = json.dumps(model.requests[0].body)
    assert "monthly_chargs" in asked, asked[:2000]
    # On cell 3 the model sees what no rule does: its Warning is drawn on that cell.
    page.select(2)
    page.click_toolbar(".crane-explain-button")
    view = page.wait(
        lambda v: any("cell 3 crashes (1 warning on the cell)" in t for t in v["toasts"]),
        "the LLM's answer about cell 3 in a notification",
        60,
    )
    assert len(model.requests) == 2, [r.path for r in model.requests]
    assert "print(total)" in json.dumps(model.requests[1].body)
    view = page.wait(lambda v: v["warn"][2], "the LLM's Warning underline on cell 3")
    assert not view["red"][2], view
    page.screenshot(f"{app}-extension-explain.png")

    # The quick fix, from the cell's context menu: the fix lands and the underline clears.
    page.context_menu(1, "Apply crane quick fix")
    view = page.wait(lambda v: v["text"][1] == FIXED, "the fix to be applied to cell 2")
    view = page.wait(lambda v: not v["red"][1], "the underline on cell 2 to clear")
    assert view["text"][0] == CELLS[0] and view["text"][2] == CELLS[2], view["text"]
    assert any("Replace with" in t for t in view["toasts"]), view["toasts"]
    page.screenshot(f"{app}-extension-fixed.png")
    # Nothing ran in the kernel but the user's own first cell: cell 2's prompt is still empty.
    assert view["prompt"][1] in ("[ ]:", "[ ]", ""), view["prompt"]


def test_the_quick_fix_says_so_when_the_cell_has_no_warning(
    front_end: tuple[str, JupyterServerProcess], driver: Any
) -> None:
    """Control: on a cell without a warning, the command changes nothing and says why."""
    app, _ = front_end
    page = Page(driver, Path("."), app)
    before = page.view()["text"]
    page.context_menu(0, "Apply crane quick fix")
    page.wait(
        lambda v: any("no warning on cell 1" in t for t in v["toasts"]),
        "the notification that cell 1 has no warning",
    )
    assert page.view()["text"] == before
