"""crane's own bookkeeping (attach, heartbeats, discovery, probes) never moves the user's RNGs.

kernel_info_request made IPython 9 draw a banner tip with `random.choice`; the user's seeded
`random.random()` then gave another number. This test holds with IPython 9 in the kernel.
"""

from __future__ import annotations

import asyncio
from importlib.metadata import version

import pytest

from crane_server.analysis.engine import check_cell
from crane_server.kernels.discovery import discover_kernels
from crane_server.kernels.session import KernelSession
from tests.conftest import RunningKernel
from tests.kernels.conftest import EventQueue

pytestmark = pytest.mark.kernel

SEEDED = (
    "import random\nimport numpy as np\nimport torch\n"
    "random.seed(0)\nnp.random.seed(0)\ntorch.manual_seed(0)"
)
# What the next draws are right after the seeds above.
EXPECTED = "(0.8444218515250481, 0.5488135039273248, 0.49625658988952637)"
DRAWS = "(random.random(), float(np.random.random()), torch.rand(1).item())"


def test_the_kernel_under_test_is_what_users_get() -> None:
    assert int(version("ipython").split(".")[0]) >= 9  # the version whose banner draws


async def test_attach_heartbeats_discovery_and_probes_leave_the_rngs_alone(
    kernel: RunningKernel,
) -> None:
    assert kernel.execute(SEEDED)["status"] == "ok"
    session = await KernelSession.attach(kernel.connection_file, timeout=10, heartbeat=0.1)
    try:
        EventQueue(session)  # a listener: the heartbeat runs while someone listens
        await asyncio.sleep(1.0)  # about ten heartbeats
        await session.bookkeeping("control", timeout=5)
        await session.run_probe("ping", {}, timeout=10)
        await session.run_probe("summarise", {"names": ["random"]}, timeout=10)
        await session.run_probe("check", {"source": "x = random.random()"}, timeout=10)
        result = await check_cell(session, "y = np.random.rand(3) + torch.rand(3).numpy()")
        assert result.error is None and result.engine == "rules"
        await asyncio.sleep(0.5)  # more heartbeats after the check
        await session.inventory(timeout=5)
        records = await discover_kernels(kernel.connection_file.parent, timeout=5)
        assert any(r.connection_file == str(kernel.connection_file) for r in records)
        mine = next(r for r in records if r.connection_file == str(kernel.connection_file))
        assert mine.language == "python"
        assert (mine.implementation or "").startswith("ipython 9")
    finally:
        await session.close()
    reply = kernel.client.execute_interactive(
        f"assert repr({DRAWS}) == {EXPECTED!r}, {DRAWS}", timeout=30, output_hook=lambda m: None
    )
    assert reply["content"]["status"] == "ok", reply["content"]
