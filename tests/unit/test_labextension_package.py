"""The prebuilt JupyterLab extension is what a wheel of crane-server installs.

A wheel (what `pip install crane-server` gets) is built from this checkout; the extension's
files must be in its data directory where JupyterLab looks (share/jupyter/labextensions), the
entry point JupyterLab loads must be among them, and the build must match its source's name
and version.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "clients" / "jupyterlab" / "labextension"
SOURCE = ROOT / "clients" / "jupyterlab" / "extension"
PREFIX = "share/jupyter/labextensions/crane-jupyterlab/"

pytestmark = pytest.mark.timeout(300)


def test_the_build_matches_its_source() -> None:
    built = json.loads((BUILT / "package.json").read_text())
    source = json.loads((SOURCE / "package.json").read_text())
    assert (built["name"], built["version"]) == (source["name"], source["version"])
    entry = BUILT / built["jupyterlab"]["_build"]["load"]
    assert entry.is_file(), entry
    # only one build's files: a stale remoteEntry left beside the new one would ship too
    assert len(list((BUILT / "static").glob("remoteEntry.*.js"))) == 1


def test_a_wheel_ships_the_extension_where_jupyterlab_looks(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--wheel-dir",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=240,
    )
    (wheel,) = tmp_path.glob("crane_server-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    data = [name.split(".data/data/", 1)[1] for name in names if ".data/data/" in name]
    shipped = {name[len(PREFIX) :] for name in data if name.startswith(PREFIX)}
    built = json.loads((BUILT / "package.json").read_text())
    assert "package.json" in shipped, data
    assert built["jupyterlab"]["_build"]["load"] in shipped, sorted(shipped)
    expected = {p.relative_to(BUILT).as_posix() for p in BUILT.rglob("*") if p.is_file()}
    assert shipped == expected
    assert "etc/jupyter/jupyter_server_config.d/crane_server.json" in data
    # jupyterlab-lsp draws a publish at once instead of debounceDelay (250 ms) later
    override = "share/jupyter/lab/settings/overrides.d/crane-server.json"
    assert override in data
    with zipfile.ZipFile(wheel) as archive:
        (member,) = [name for name in names if name.endswith(override)]
        defaults = json.loads(archive.read(member))
    assert defaults["@jupyter-lsp/jupyterlab-lsp:diagnostics"]["debounceDelay"] == 1
