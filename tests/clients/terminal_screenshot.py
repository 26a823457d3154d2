"""A terminal program's screen as a person sees it: tmux runs it, Chromium renders the capture.

`tmux capture-pane -e` gives the screen with its SGR colour codes; they are turned into HTML
spans and Chromium (Debian's, headless) takes the screenshot.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

BASIC = [
    "#1e1e1e", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
    "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
]  # fmt: skip
SGR = re.compile(r"\x1b\[([0-9;:]*)m")
FOREGROUND, BACKGROUND = "#d4d4d4", "#1e1e1e"


def _xterm_256(index: int) -> str:
    if index < 16:
        return BASIC[index]
    if index < 232:
        index -= 16
        levels = [0, 95, 135, 175, 215, 255]
        r, g, b = levels[index // 36], levels[(index // 6) % 6], levels[index % 6]
        return f"#{r:02x}{g:02x}{b:02x}"
    grey = 8 + (index - 232) * 10
    return f"#{grey:02x}{grey:02x}{grey:02x}"


def _apply(codes: list[int], state: dict[str, object]) -> None:
    """Update (fg, bg, bold, underline, reverse) from one SGR sequence."""
    i = 0
    while i < len(codes):
        code = codes[i]
        if code == 0:
            state.update(fg=None, bg=None, bold=False, underline=False, reverse=False)
        elif code == 1:
            state["bold"] = True
        elif code in (4, 21):
            state["underline"] = True
        elif code == 7:
            state["reverse"] = True
        elif code == 22:
            state["bold"] = False
        elif code == 24:
            state["underline"] = False
        elif code == 27:
            state["reverse"] = False
        elif 30 <= code <= 37 or 90 <= code <= 97:
            state["fg"] = BASIC[code - 30 if code < 90 else code - 82]
        elif 40 <= code <= 47 or 100 <= code <= 107:
            state["bg"] = BASIC[code - 40 if code < 100 else code - 92]
        elif code == 39:
            state["fg"] = None
        elif code == 49:
            state["bg"] = None
        elif code in (38, 48) and i + 1 < len(codes):
            key = "fg" if code == 38 else "bg"
            if codes[i + 1] == 5 and i + 2 < len(codes):
                state[key] = _xterm_256(codes[i + 2])
                i += 2
            elif codes[i + 1] == 2 and i + 4 < len(codes):
                r, g, b = codes[i + 2 : i + 5]
                state[key] = f"#{r:02x}{g:02x}{b:02x}"
                i += 4
        i += 1


def ansi_to_html(screen: str) -> str:
    """The captured screen as a standalone HTML page in a monospace font."""
    state: dict[str, object] = {
        "fg": None, "bg": None, "bold": False, "underline": False, "reverse": False,
    }  # fmt: skip
    out: list[str] = []
    position = 0
    for match in SGR.finditer(screen):
        out.append(_span(screen[position : match.start()], state))
        codes = [int(c) if c else 0 for c in re.split("[;:]", match.group(1))]
        _apply(codes, state)
        position = match.end()
    out.append(_span(screen[position:], state))
    body = "".join(out)
    return (
        "<html><body style='margin:0;background:%s'><pre style='margin:8px;font:14px/1.25 "
        "DejaVu Sans Mono,monospace;color:%s'>%s</pre></body></html>"
        % (BACKGROUND, FOREGROUND, body)
    )


def _span(text: str, state: dict[str, object]) -> str:
    if not text:
        return ""
    fg, bg = state["fg"] or FOREGROUND, state["bg"] or BACKGROUND
    if state["reverse"]:
        fg, bg = bg, fg
    style = f"color:{fg};background:{bg}"
    if state["bold"]:
        style += ";font-weight:bold"
    if state["underline"]:
        style += ";text-decoration:underline"
    return f"<span style='{style}'>{html.escape(text)}</span>"


def render_png(screen_ansi: str, png: Path, width: int = 1100, height: int = 420) -> None:
    """Render a captured screen to `png` with headless Chromium."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "Debian's chromium is needed for screenshots (scripts/install-dev installs it)"
    with tempfile.TemporaryDirectory() as scratch:
        page = Path(scratch) / "screen.html"
        page.write_text(ansi_to_html(screen_ansi))
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={scratch}/profile",
                f"--window-size={width},{height}",
                f"--screenshot={png}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
    assert png.is_file() and png.stat().st_size > 0
