"""`crane-server kernels` and `crane-server inspect`, including every kind of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from crane_server.cli import main
from tests.conftest import RunningKernel
from tests.kernels.conftest import copy_connection_file, write_dead_connection_file

pytestmark = pytest.mark.kernel


def test_kernels_json_in_a_subprocess(shared_kernel: RunningKernel, tmp_path: Path) -> None:
    copy_connection_file(shared_kernel.connection_file, tmp_path / "kernel-one.json")
    write_dead_connection_file(tmp_path / "kernel-dead.json")
    result = subprocess.run(
        [sys.executable, "-m", "crane_server", "kernels", "--json", "--timeout", "1"],
        env={"JUPYTER_RUNTIME_DIR": str(tmp_path), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    records = {record["kernel_id"]: record for record in json.loads(result.stdout)}
    assert records["one"]["state"] == "idle"
    assert records["one"].get("stale", False) is False
    assert records["dead"]["stale"] is True
    assert records["one"]["dry_run"].startswith("available (seccomp")
    assert "dry_run" not in records["dead"]


def test_kernels_table(
    shared_kernel: RunningKernel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_connection_file(shared_kernel.connection_file, tmp_path / "kernel-one.json")
    write_dead_connection_file(tmp_path / "kernel-dead.json")
    assert main(["kernels", "--runtime-dir", str(tmp_path), "--timeout", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["KERNEL", "STATE", "PID"]
    assert out[1].split()[:2] == ["one", "idle"]
    assert out[2].startswith("dry run: available (seccomp")
    assert out[3].startswith("stale connection files (1")
    assert out[4].strip() == str(tmp_path / "kernel-dead.json")


def test_inspect_names(shared_kernel: RunningKernel, capsys: pytest.CaptureFixture[str]) -> None:
    shared_kernel.execute("import os\nnumbers = [1, 2, 3]\ndef add(a, b=2): return a + b")
    args = ["inspect", "--connection-file", str(shared_kernel.connection_file)]
    assert main([*args, "numbers", "add"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in lines] == [["numbers", "list"], ["add", "function"]]

    assert main([*args, "--json", "--categories", "SR"]) == 0
    snapshot = json.loads(capsys.readouterr().out)
    assert {"os", "numbers", "add"} <= set(snapshot["variables"])
    assert snapshot["variables"]["numbers"]["type"] == "list"
    assert "In" not in snapshot["variables"]


def _bad_inputs(tmp_path: Path, kernel: RunningKernel) -> dict[str, tuple[list[str], str]]:
    connection = str(kernel.connection_file)
    malformed = tmp_path / "kernel-malformed.json"
    malformed.write_text("{ this is not json", encoding="utf-8")
    incomplete = tmp_path / "kernel-incomplete.json"
    incomplete.write_text('{"ip": "127.0.0.1"}', encoding="utf-8")
    wrong_key = copy_connection_file(
        kernel.connection_file, tmp_path / "kernel-wrongkey.json", key="not-the-key"
    )
    dead = write_dead_connection_file(tmp_path / "kernel-dead.json")
    fast = ["--timeout", "0.5"]
    return {
        "missing": (["--connection-file", str(tmp_path / "nope.json")], "no such connection file"),
        "unreadable": (["--connection-file", str(tmp_path)], "cannot read connection file"),
        "malformed": (["--connection-file", str(malformed)], "malformed connection file"),
        "incomplete": (
            ["--connection-file", str(incomplete)],
            "missing required field `shell_port`",
        ),
        "wrong key": (["--connection-file", str(wrong_key), *fast], "wrong"),
        "dead kernel": (["--connection-file", str(dead), *fast], "no answer from the kernel"),
        "unknown name": (["--connection-file", connection, "no_such_name"], "no_such_name"),
        "bad categories": (["--connection-file", connection, "--categories", "X"], "categories"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "missing",
        "unreadable",
        "malformed",
        "incomplete",
        "wrong key",
        "dead kernel",
        "unknown name",
        "bad categories",
    ],
)
def test_inspect_bad_input_is_one_line_exit_2(
    case: str,
    shared_kernel: RunningKernel,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    arguments, expected = _bad_inputs(tmp_path, shared_kernel)[case]
    assert main(["inspect", *arguments]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("crane-server: error: ")
    assert expected in lines[0]
