"""Issue 11: a check never runs, changes or stalls anything in the user's kernel.

Over a thousand generated cells that would create or delete files, spawn processes, read
stdin, import modules, connect to a socket, unpickle, or sleep, if the checker ever called
what they hand it, are checked (never run) through the real probe in one armed kernel. After
each, nothing may have moved: no marker file, the sentinel file and directory intact, no
connection to the listening socket, and the kernel's names, execution count, sys.modules,
cwd and audit log as before.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import run_probe
from tests.security.harness import Armed
from tests.security.payloads import ACTIONS, all_payloads

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

# A check of any payload answers at once; the slow ones would sleep 20 s or wait on a process.
MAX_CHECK_S = 5.0
SANDBOX_PLACEHOLDER = "/crane-sandbox"


def _group(payload_id: str) -> str:
    """Payloads are run in groups (one kernel round trip each; one test per group)."""
    head = payload_id.split("-lambda-")[0].split("-builtin-")[0].split("-kernel-function-")[0]
    if payload_id.startswith("class-"):
        return "class-" + payload_id.split("-")[1]
    if payload_id.startswith("kernel-function-"):
        return "kernel-function"
    if payload_id.startswith("trap-"):
        return "live-object-dunders"
    if "pickle" in payload_id or payload_id.startswith("np-load"):
        return "pickles"
    if head != payload_id:
        return head
    return "direct-" + payload_id.split("-")[0]


def _groups() -> dict[str, list[str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for payload_id, _cell in all_payloads(SANDBOX_PLACEHOLDER):
        groups[_group(payload_id)].append(payload_id)
    return dict(groups)


GROUPS = _groups()


def test_at_least_a_thousand_payloads() -> None:
    ids = [payload_id for payload_id, _ in all_payloads(SANDBOX_PLACEHOLDER)]
    assert len(ids) == len(set(ids)) >= 1000, len(ids)


@pytest.fixture(scope="module")
def armed(runtime_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Armed]:
    sandbox = tmp_path_factory.mktemp("security")
    kernel = RunningKernel(runtime_dir, cwd=sandbox)
    armed = None
    try:
        armed = Armed(kernel, sandbox)
        yield armed
    finally:
        if armed is not None:
            armed.close()
        kernel.shutdown()


@pytest.fixture(scope="module")
def cells(armed: Armed) -> dict[str, str]:
    return dict(all_payloads(str(armed.sandbox)))


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_checking_payloads_has_no_effect(armed: Armed, cells: dict[str, str], group: str) -> None:
    failures = []
    for payload_id in GROUPS[group]:
        cell = cells[payload_id]
        effects, elapsed, _result = armed.check(cell)
        if elapsed > MAX_CHECK_S:
            effects.append(f"the check took {elapsed:.1f} s")
        if effects:
            failures.append(f"{payload_id}: {cell!r}: {'; '.join(effects)}")
    assert not failures, "\n".join(failures)


CONTROLS = [
    *[pytest.param(f"{a.code}", id=f"action-{a.name}") for a in ACTIONS if a.name != "sleep"],
    pytest.param("pickle.loads(EVIL_PICKLE)", id="pickle"),
    pytest.param("np.load(NPY_PATH, allow_pickle=True)", id="npy-pickle"),
    pytest.param("len(trap)", id="trap-dunder"),
    pytest.param("isinstance(sly, int)", id="sly-class"),
    pytest.param("'{0.boom}'.format(trap)", id="format-getattr"),
]


@pytest.fixture(scope="module")
def control(runtime_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Armed]:
    sandbox = tmp_path_factory.mktemp("control")
    kernel = RunningKernel(runtime_dir, cwd=sandbox)
    armed = None
    try:
        armed = Armed(kernel, sandbox)
        yield armed
    finally:
        if armed is not None:
            armed.close()
        kernel.shutdown()


@pytest.mark.parametrize("code", CONTROLS)
def test_the_tripwires_catch_each_action_when_it_really_runs(control: Armed, code: str) -> None:
    # The same actions run for real (as the user would) must trip something specific: the
    # file system, the socket, or the audit log (not just the execution count).
    control.kernel.client.execute_interactive(
        code, allow_stdin=False, timeout=30, output_hook=lambda message: None
    )
    specific = [
        effect
        for effect in control.effects()
        if not effect.startswith(("count changed", "names changed"))
    ]
    assert specific, f"running {code!r} for real tripped nothing"


def test_summarising_the_armed_objects_has_no_effect(armed: Armed) -> None:
    # The runtime snapshot (hover, the LLM prompt) reads the same objects the payloads use.
    names = ["trap", "sly", "plain", "Shape", "box", "cabinet", "relay", "do_exec", "s", "df"]
    names += ["arr", "EVIL_PICKLE", "_audit", "AUDIT", "Trap", "Sly", "Meta", "ADDR", "CODE"]
    names += ["tser", "tsly", "tdf", "tarr", "tarr_sly"]
    result, _iopub = run_probe(armed.kernel, "summarise", {"names": names})
    assert "error" not in result, result
    assert armed.effects() == []
