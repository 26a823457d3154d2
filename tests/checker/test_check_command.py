"""`crane-server check` end to end: real kernels, exit statuses, JSON, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.kernel


def notebook(path: Path, *cells: str, raw: str | None = None) -> Path:
    if raw is not None:
        path.write_text(raw, encoding="utf-8")
        return path
    document = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": cell,
            }
            for cell in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def crane(
    *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crane_server", *args],
        capture_output=True,
        text=True,
        timeout=120,
        input=stdin,
        cwd=cwd,
    )


SETUP = "import pandas as pd\ndf = pd.DataFrame({'Amount': [1, 2], 'Class': [0, 1]})"


def test_crash_predicted_json(tmp_path: Path) -> None:
    path = notebook(tmp_path / "nb.ipynb", SETUP, "x = 1\ntotal = df['amount'].sum()")
    done = crane("check", str(path), "--json")
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["crash"] is True and result["cell"] == 2
    finding = result["findings"][0]
    assert (finding["code"], finding["exception"], finding["line"]) == (
        "pandas-missing-column",
        "KeyError",
        2,
    )
    assert finding["evidence"]["closest"] == "Amount"
    assert {"check_ms", "total_ms"} <= set(result["timings"])


def test_no_crash_human_output(tmp_path: Path) -> None:
    path = notebook(tmp_path / "nb.ipynb", SETUP, "total = df['Amount'].sum()")
    done = crane("check", str(path))
    assert done.returncode == 0, done.stderr
    assert "no crash predicted" in done.stdout


def test_cell_option_and_caret(tmp_path: Path) -> None:
    path = notebook(tmp_path / "nb.ipynb", SETUP, "df['Clas']", "print('later')")
    done = crane("check", str(path), "--cell", "2")
    assert done.returncode == 1
    assert "line 1:1: error: KeyError: 'Clas' [pandas-missing-column]" in done.stdout
    assert "    df['Clas']\n    ^^^^^^^^^^" in done.stdout
    assert "fix: use 'Class'" in done.stdout


def test_target_is_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    path = notebook(tmp_path / "nb.ipynb", SETUP, f"open({str(marker)!r}, 'w').write('x')")
    done = crane("check", str(path))
    assert done.returncode == 0, done.stderr
    assert not marker.exists()


def test_syntax_error_is_one_diagnostic(tmp_path: Path) -> None:
    path = notebook(tmp_path / "nb.ipynb", SETUP, "for x in range(3)\n    print(x)")
    result = json.loads(crane("check", str(path), "--json").stdout)
    assert [f["exception"] for f in result["findings"]] == ["SyntaxError"]
    assert result["findings"][0]["line"] == 1


@pytest.mark.parametrize(
    ("raw", "cells", "message"),
    [
        pytest.param("{not json", (), "invalid JSON", id="invalid-json"),
        pytest.param(
            json.dumps({"cells": [{"cell_type": "markdown", "source": "# hi"}]}),
            (),
            "no code cells",
            id="no-code-cells",
        ),
        pytest.param(json.dumps({"nbformat": 4}), (), "no 'cells' list", id="no-cells"),
    ],
)
def test_bad_notebooks_exit_2(
    tmp_path: Path, raw: str, cells: tuple[str, ...], message: str
) -> None:
    path = notebook(tmp_path / "bad.ipynb", raw=raw)
    done = crane("check", str(path))
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_missing_notebook_and_bad_cell_index(tmp_path: Path) -> None:
    done = crane("check", str(tmp_path / "absent.ipynb"))
    assert done.returncode == 2 and "no such notebook" in done.stderr
    path = notebook(tmp_path / "nb.ipynb", SETUP, "df")
    done = crane("check", str(path), "--cell", "7")
    assert done.returncode == 2 and "out of range" in done.stderr


def test_failing_preceding_cell_is_reported(tmp_path: Path) -> None:
    path = notebook(tmp_path / "nb.ipynb", SETUP, "1 / 0", "df['Amount']")
    done = crane("check", str(path), "--json")
    assert done.returncode == 2
    result = json.loads(done.stdout)
    # The target is the 3rd code cell; the 2nd failed. Both outputs count from 1.
    assert result["cell"] == 3
    assert "code cell 2 failed" in result["error"] and "ZeroDivisionError" in result["error"]
    assert result["findings"] == []
    assert "code cell 2 failed" in done.stderr and len(done.stderr.splitlines()) == 1


def test_attach_mode_reads_cell_from_stdin(kernel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    kernel.execute(SETUP)
    done = crane(
        "check",
        "--connection-file",
        str(kernel.connection_file),
        "-",
        "--json",
        stdin="df.groupby('clas').size()",
    )
    assert done.returncode == 1, done.stderr
    finding = json.loads(done.stdout)["findings"][0]
    assert finding["code"] == "pandas-missing-column" and finding["evidence"]["closest"] == "Class"
    assert (
        kernel.execute("print(1)")["execution_count"] == 2
    )  # the check did not count as an execution


def test_human_output_numbers_cells_from_one(tmp_path: Path) -> None:
    path = notebook(tmp_path / "nb.ipynb", SETUP, "df['Clas']")
    done = crane("check", str(path), "--cell", "2")
    assert done.returncode == 1
    # --cell 2 is the second code cell, as the text calls it; columns are 1-based in the text.
    assert done.stdout.startswith(f"{path}, code cell 2, line 1:1: error: KeyError")
    assert done.stderr == ""
    result = json.loads(crane("check", str(path), "--cell", "2", "--json").stdout)
    assert result["cell"] == 2 and result["findings"][0]["column"] == 0
    zero = crane("check", str(path), "--cell", "0")
    assert zero.returncode == 2 and "numbered from 1" in zero.stderr


def test_errors_go_to_stderr_never_stdout(tmp_path: Path) -> None:
    path = notebook(tmp_path / "nb.ipynb", SETUP, "1 / 0", "df['Amount']")
    done = crane("check", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("crane-server: error: ") and "ZeroDivisionError" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_cell_that_kills_the_kernel_is_noticed_at_once(tmp_path: Path) -> None:
    path = notebook(tmp_path / "nb.ipynb", SETUP, "import os\nos._exit(3)", "df['Amount']")
    started = time.monotonic()
    done = crane("check", str(path), "--timeout", "120")
    elapsed = time.monotonic() - started
    assert done.returncode == 2, done.stdout
    assert done.stdout == ""
    assert "code cell 2 ended the kernel" in done.stderr and "status 3" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert elapsed < 60, elapsed  # it used to wait for the whole 121 s timeout


def test_the_notebook_cannot_read_cranes_secrets(tmp_path: Path) -> None:
    canary = "crane-canary-" + os.urandom(6).hex()
    (tmp_path / ".env").write_text(f"CRANE_LLM_API_KEY={canary}-dotenv\n", encoding="utf-8")
    # The preceding cell fails (exit 2) if the kernel's environment holds any canary.
    probe = (
        "import os\n"
        "found = sorted(k for k, v in os.environ.items() if 'crane-canary-' in v)\n"
        "assert found == [], found"
    )
    path = notebook(tmp_path / "nb.ipynb", probe, "x = 1")
    env = {
        **os.environ,
        "OPENAI_API_KEY": canary + "-openai",
        "HF_TOKEN": canary + "-hf",
        "MY_SERVICE_SECRET": canary + "-secret",
        "SOME_PLAIN_NAME": canary + "-dotenv",  # the .env key's value under another name
        "CRANE_PLAIN_CHECK": "visible",
    }
    done = subprocess.run(
        [sys.executable, "-m", "crane_server", "check", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # Ordinary variables still reach the kernel: the filter is not "drop everything".
    plain = notebook(
        tmp_path / "plain.ipynb", "import os\nassert os.environ['CRANE_PLAIN_CHECK']", "y = 1"
    )
    done = subprocess.run(
        [sys.executable, "-m", "crane_server", "check", str(plain)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr


def test_busy_kernel_says_static_check_only(kernel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    kernel.execute(SETUP)
    kernel.client.execute("import time\ntime.sleep(30)")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # wait until the cell is running (status busy)
        message = kernel.client.get_iopub_msg(timeout=30)
        if message["msg_type"] == "execute_input":
            break
    args = ["check", "--connection-file", str(kernel.connection_file), "-"]
    done = crane(*args, stdin="df['missing']")
    assert done.returncode == 0, done.stderr
    assert "kernel busy: static check only" in done.stdout
    assert "no crash predicted" in done.stdout
    result = json.loads(crane(*args, "--json", stdin="df['missing']").stdout)
    assert result["engine"] == "static" and result["partial"] is True
    assert result["crash"] is False
    # attached while busy: no names were listed before the cell started, so names are not
    # judged (the kernel cannot list them without running user code), syntax still is
    undefined = json.loads(crane(*args, "--json", stdin="print(no_such_name)").stdout)
    assert undefined["crash"] is False and undefined["engine"] == "static"
    broken = json.loads(crane(*args, "--json", stdin="x = (").stdout)
    assert broken["crash"] is True and broken["findings"][0]["code"] == "python-syntax-error"
    kernel.manager.interrupt_kernel()
