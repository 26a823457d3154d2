"""Run a case notebook in a fresh kernel and report what its target cell really does.

Used by the corpus tests to prove that every reproduced target crashes as its case.json says
and that every fixed target runs clean. The code cells before the target run as one joined
execution (one round trip), the target cell as its own execution, like a user running it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_client.manager import KernelManager

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclass(frozen=True)
class TargetOutcome:
    """What happened when the notebook ran: setup failure, or the target's status."""

    status: str  # "ok" | "error" | "setup-error" | "timeout"
    ename: str | None = None
    evalue: str | None = None
    target_lines: list[int] = field(default_factory=list)
    traceback: str = ""
    seconds: float = 0.0


def read_code_cells(path: Path) -> list[str]:
    """Return the sources of the code cells of an nbformat 4 notebook, in order."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells: list[str] = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = cell["source"]
        cells.append("".join(source) if isinstance(source, list) else source)
    if not cells:
        raise ValueError(f"{path} has no code cells")
    return cells


# Run after the target failed: the lines of the frames of sys.last_traceback whose code is the
# target cell (IPython registers each cell's source in linecache under the cell's file name).
_FRAMES_CODE = """
import linecache as _crane_lc, sys as _crane_sys
_crane_tb = getattr(_crane_sys, "last_traceback", None)
_crane_frames = []
while _crane_tb is not None:
    _crane_name = _crane_tb.tb_frame.f_code.co_filename
    _crane_entry = _crane_lc.cache.get(_crane_name, ())
    _crane_text = "".join(_crane_entry[2]) if len(_crane_entry) > 2 else ""
    _crane_frames.append((_crane_text, _crane_tb.tb_lineno))
    _crane_tb = _crane_tb.tb_next
"""


def _target_lines(client: object, target: str, timeout: float) -> list[int]:
    """Lines of the target cell on the traceback of the last error, outermost first."""
    expression = f"[line for text, line in _crane_frames if text.rstrip() == {target.rstrip()!r}]"
    reply = client.execute_interactive(  # type: ignore[attr-defined]
        _FRAMES_CODE,
        silent=True,
        store_history=False,
        user_expressions={"lines": expression},
        timeout=timeout,
        output_hook=lambda msg: None,
    )
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"could not walk the traceback: {reply['content'].get('evalue')}")
    result = reply["content"]["user_expressions"]["lines"]
    if result.get("status") != "ok":
        raise RuntimeError(f"could not read the traceback frames: {result}")
    lines: list[int] = json.loads(result["data"]["text/plain"])
    return lines


def _kernel_env() -> dict[str, str]:
    env = dict(os.environ)
    env["MPLBACKEND"] = "Agg"
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    return env


def _execute(km_client: object, code: str, timeout: float) -> dict[str, object]:
    reply = km_client.execute_interactive(  # type: ignore[attr-defined]
        code, timeout=timeout, output_hook=lambda msg: None, allow_stdin=False
    )
    content: dict[str, object] = reply["content"]
    return content


def run_notebook(
    path: Path,
    *,
    cell_timeout: float = 60.0,
    startup_timeout: float = 60.0,
    connection_dir: Path | None = None,
) -> TargetOutcome:
    """Run the code cells before the last one, then the last one, in a fresh kernel."""
    started = time.perf_counter()
    cells = read_code_cells(path)
    # A scratch copy of the case folder: notebooks may write files (models, exports).
    with tempfile.TemporaryDirectory(prefix="crane-corpus-") as scratch:
        workdir = Path(scratch) / path.parent.name
        shutil.copytree(path.parent, workdir)
        outcome = _run_cells(cells, workdir, cell_timeout, startup_timeout, connection_dir)
    return dataclasses.replace(outcome, seconds=time.perf_counter() - started)


# A kernel that dies before its first reply (nothing of the notebook has run yet) is started
# again, up to this many attempts in all; the last one's stderr goes into the error.
STARTUP_ATTEMPTS = 2


class KernelStartupError(Exception):
    """The kernel died before it answered kernel_info."""


def _run_cells(
    cells: list[str],
    workdir: Path,
    cell_timeout: float,
    startup_timeout: float,
    connection_dir: Path | None,
) -> TargetOutcome:
    for attempt in range(1, STARTUP_ATTEMPTS + 1):
        with tempfile.TemporaryFile() as stderr:
            try:
                return _run_in_fresh_kernel(
                    cells, workdir, cell_timeout, startup_timeout, connection_dir, stderr
                )
            except KernelStartupError:
                if attempt == STARTUP_ATTEMPTS:
                    stderr.seek(0)
                    tail = stderr.read().decode("utf-8", "replace")[-2000:]
                    raise RuntimeError(
                        f"the kernel died before its first reply, {attempt} times; "
                        f"its stderr:\n{tail}"
                    ) from None
    raise AssertionError("unreachable")


def _run_in_fresh_kernel(
    cells: list[str],
    workdir: Path,
    cell_timeout: float,
    startup_timeout: float,
    connection_dir: Path | None,
    stderr: object,
) -> TargetOutcome:
    before, target = cells[:-1], cells[-1]
    manager = KernelManager(kernel_name="python3")
    if connection_dir is not None:
        manager.connection_file = str(connection_dir / f"kernel-corpus-{uuid.uuid4().hex}.json")
    manager.session.key = uuid.uuid4().hex.encode()
    manager.start_kernel(
        cwd=str(workdir),
        env=_kernel_env(),
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    client = manager.client()
    client.start_channels()
    try:
        try:
            client.wait_for_ready(timeout=startup_timeout)
        except RuntimeError as exc:
            if "died" in str(exc):
                raise KernelStartupError() from exc
            raise
        setup = _run_setup(client, before, cell_timeout)
        if setup is not None:
            return TargetOutcome(
                status="setup-error",
                ename=setup.get("ename"),  # type: ignore[arg-type]
                evalue=setup.get("evalue"),  # type: ignore[arg-type]
                traceback=_plain(setup),
            )
        try:
            reply = _execute(client, target, cell_timeout)
        except TimeoutError:
            return TargetOutcome(status="timeout")
        if reply["status"] == "ok":
            return TargetOutcome(status="ok")
        return TargetOutcome(
            status="error",
            ename=str(reply.get("ename")),
            evalue=str(reply.get("evalue")),
            target_lines=_target_lines(client, target, cell_timeout),
            traceback=_plain(reply),
        )
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
        manager.cleanup_resources()


def _run_setup(client: object, cells: list[str], timeout: float) -> dict[str, object] | None:
    """Run the preceding cells; return the failing reply, or None when all succeeded."""
    if not cells:
        return None
    if any(cell.lstrip().startswith("%%") for cell in cells):
        chunks = cells
    else:
        chunks = ["\n\n".join(cells)]
    for chunk in chunks:
        try:
            reply = _execute(client, chunk, timeout * len(cells))
        except TimeoutError:
            return {"status": "error", "ename": "TimeoutError", "evalue": "setup timed out"}
        if reply["status"] != "ok":
            return reply
    return None


def _plain(reply: dict[str, object]) -> str:
    raw = reply.get("traceback") or []
    lines = raw if isinstance(raw, list) else [raw]
    return _ANSI.sub("", "\n".join(str(line) for line in lines))


def outcome_problems(case: dict[str, object], variant: str, outcome: TargetOutcome) -> list[str]:
    """What is wrong with `outcome` for this case and variant ("reproduced" or "fixed")."""
    if outcome.status in ("setup-error", "timeout"):
        return [
            f"{variant}: {outcome.status} {outcome.ename}: {outcome.evalue}\n{outcome.traceback}"
        ]
    if variant == "fixed":
        if outcome.status != "ok":
            return [f"fixed target raised {outcome.ename}: {outcome.evalue}\n{outcome.traceback}"]
        return []
    problems: list[str] = []
    if outcome.status != "error":
        return ["reproduced target ran without an exception"]
    if outcome.ename != case["expected_exception"]:
        problems.append(
            f"raised {outcome.ename}: {outcome.evalue}, expected {case['expected_exception']}"
        )
    if outcome.target_lines != case["crash_lines"]:
        problems.append(
            f"traceback names target lines {outcome.target_lines}, case.json says "
            f"{case['crash_lines']}"
        )
    if not outcome.target_lines or outcome.target_lines[-1] != case["crash_line"]:
        problems.append(f"crash_line {case['crash_line']} is not the innermost target frame")
    return problems


def load_case(folder: Path) -> dict[str, object]:
    """The case.json of a case folder."""
    data: dict[str, object] = json.loads((folder / "case.json").read_text(encoding="utf-8"))
    return data


def main() -> None:
    """Verify case folders given on the command line (2 at a time) and print the problems."""
    import sys
    from concurrent.futures import ThreadPoolExecutor

    folders = [Path(arg) for arg in sys.argv[1:]]
    jobs = [(folder, variant) for folder in folders for variant in ("reproduced", "fixed")]
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = pool.map(lambda job: run_notebook(job[0] / f"{job[1]}.ipynb"), jobs)
        for (folder, variant), outcome in zip(jobs, outcomes):
            problems = outcome_problems(load_case(folder), variant, outcome)
            status = "ok " if not problems else "BAD"
            print(
                f"{status} {folder.name}/{variant} {outcome.status} {outcome.ename} "
                f"{outcome.target_lines} {outcome.seconds:.1f}s",
                flush=True,
            )
            for problem in problems:
                print("    " + problem.replace("\n", "\n    "), flush=True)
    print(f"{len(jobs)} notebooks in {time.perf_counter() - started:.0f}s")


if __name__ == "__main__":
    main()
