"""The commands the README and the docs show are commands crane-server accepts, and the
README's quickstart output is what the command prints today."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from crane_server.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)


def shown_commands() -> list[tuple[str, str]]:
    """(page, command line) for every `crane-server ...` line in a fenced block."""
    found = []
    for page in PAGES:
        for block in FENCE.findall(page.read_text(encoding="utf-8")):
            joined = block.replace("\\\n", " ")
            for line in joined.splitlines():
                line = line.strip().removeprefix("$ ")
                if line.startswith("crane-server"):
                    found.append((page.relative_to(ROOT).as_posix(), line))
    return found


def arguments(line: str) -> list[str]:
    """The argv of a shown command: comments, shell redirections and [optional] parts dropped."""
    line = re.sub(r"\s+#\s.*$", "", line)
    line = re.sub(r"\[[^\]]*\]", "", line)
    line = line.split(" < ")[0].split(" | ")[0].split(" && ")[0]
    argv = shlex.split(line)[1:]
    if not argv or (argv[0].startswith("--") and argv[0] not in ("--version", "-h", "--help")):
        argv = ["serve", *argv]
    return argv


COMMANDS = shown_commands()


def test_the_docs_show_commands() -> None:
    assert len(COMMANDS) >= 15, COMMANDS
    shown = {arguments(line)[0] for _, line in COMMANDS}
    assert {"check", "eval", "config", "serve"} <= shown


@pytest.mark.parametrize(("page", "line"), COMMANDS)
def test_a_shown_command_parses(page: str, line: str) -> None:
    argv = arguments(line)
    if argv == ["--version"]:
        return
    try:
        build_parser().parse_args(argv)
    except SystemExit as exc:
        pytest.fail(f"{page}: `{line}` is refused by the parser (exit {exc.code})")


@pytest.mark.kernel
def test_the_readme_quickstart_output_is_real() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(b for b in FENCE.findall(readme) if "$ crane-server check" in b)
    command, *expected = block.rstrip("\n").splitlines()
    done = subprocess.run(
        [sys.executable, "-m", "crane_server", *shlex.split(command.removeprefix("$ "))[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout.rstrip("\n").splitlines() == expected


def test_every_test_the_promise_list_cites_exists() -> None:
    page = (ROOT / "docs" / "promises.md").read_text(encoding="utf-8")
    cited = re.findall(r"`((?:[\w]+/)+test_\w+\.py)((?:::\w+)?)`", page)
    assert len(cited) >= 15, cited
    for path, name in cited:
        source = ROOT / "tests" / path
        assert source.is_file(), path
        if name:
            assert re.search(rf"^(async )?def {name[2:]}\(", source.read_text(), re.M), path + name
    # the `::name` written after a cited file ("`a.py::x`, control `::y`") names a test there too
    for path, rest in re.findall(r"`((?:[\w]+/)+test_\w+\.py)::\w+`((?:, [^`|]*`::\w+`)+)", page):
        for name in re.findall(r"`::(\w+)`", rest):
            assert re.search(rf"^(async )?def {name}\(", (ROOT / "tests" / path).read_text(), re.M)
