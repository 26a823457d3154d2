"""Generated bad connection files: one clear line and exit 2, or a listed bad file; never a
traceback, never a hang.

A seeded generator writes a few hundred variants (wrong field types and sizes, missing
fields, garbage, deep nesting, huge files, FIFOs, directories, sockets, symlink loops,
devices). They go through `KernelSession.attach` (what the language server's
crane.attachKernel uses) while a ticker measures the event loop, `kernels` as one
subprocess over a runtime dir holding every variant, and `check --connection-file` and
`inspect` as subprocesses: a driver process runs the CLI's `main` once per file (one
interpreter start for all of them), and a sample also runs one process per file.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from crane_server.errors import KernelError
from crane_server.kernels.session import KernelSession
from tests.kernels.conftest import free_ports

pytestmark = pytest.mark.kernel

SEED = 20261202
FIELDS = (
    "shell_port",
    "iopub_port",
    "stdin_port",
    "control_port",
    "hb_port",
    "ip",
    "key",
    "transport",
    "signature_scheme",
    "kernel_name",
    "jupyter_session",
)
PER_ERROR_S = 5.0  # the most any one variant may take to be refused


@dataclass
class Variant:
    path: Path
    kind: str
    usable: bool  # a well-formed file (its ports are dead): refused by timeout, not parsing


def _value(rng: random.Random, depth: int = 0) -> Any:
    """A JSON value of a random type and size."""
    choice = rng.randrange(14)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, -1, 65536, 2**31, 2**64, -(2**63), 1])
    if choice == 3:
        return rng.choice([1.5, -0.0, 1e308, 3.0])
    if choice == 4:
        return ""
    if choice == 5:
        return "x" * rng.choice([1, 255, 4097, 70_000])
    if choice == 6:
        return "".join(chr(rng.randrange(1, 0x2FFF)) for _ in range(rng.randrange(1, 40)))
    if choice == 7:
        return "\x00\n\r\t\u2028"
    if choice == 8:
        return rng.choice(
            ["hmac-sha256", "hmac-md5", "hmac-nope", "rsa", "hmac-", "hmac-shake_128"]
        )
    if choice == 9:
        return rng.choice(["tcp", "ipc", "udp", "inproc", "TCP", "tcp://"])
    if choice == 10:
        return rng.choice(["127.0.0.1", "::1", "*", "999.1.1.1", "localhost", "a..b", "-x"])
    if choice == 11 and depth < 3:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if choice == 12 and depth < 3:
        return {f"k{i}": _value(rng, depth + 1) for i in range(rng.randrange(0, 4))}
    return rng.randrange(1, 65536)


def _base(ports: list[int]) -> dict[str, Any]:
    shell, iopub, stdin, control, hb = ports
    return {
        "shell_port": shell,
        "iopub_port": iopub,
        "stdin_port": stdin,
        "control_port": control,
        "hb_port": hb,
        "ip": "127.0.0.1",
        "key": "0123456789abcdef",
        "transport": "tcp",
        "signature_scheme": "hmac-sha256",
        "kernel_name": "python3",
    }


def _json_variant(rng: random.Random, base: dict[str, Any]) -> tuple[str, str]:
    info = dict(base)
    fields = rng.sample(FIELDS, rng.randrange(1, 4))
    for name in fields:
        if rng.random() < 0.2:
            info.pop(name, None)
        else:
            info[name] = _value(rng)
    return "fields:" + ",".join(sorted(fields)), json.dumps(info)


def _raw_variant(rng: random.Random, base: dict[str, Any]) -> tuple[str, bytes]:
    text = json.dumps(base)
    kinds: list[tuple[str, Any]] = [
        ("empty", lambda: b""),
        ("garbage", lambda: rng.randbytes(rng.randrange(1, 4096))),
        ("truncated", lambda: text[: rng.randrange(1, len(text))].encode()),
        ("array", lambda: json.dumps([base]).encode()),
        ("scalar", lambda: rng.choice([b"1", b'"x"', b"null", b"true"])),
        ("nested", lambda: b'{"ip": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        ("nested-object", lambda: b'{"a":' * 5000 + b"1" + b"}" * 5000),
        ("utf16", lambda: text.encode("utf-16")),
        ("bom", lambda: b"\xef\xbb\xbf" + text.encode()),
        ("latin1", lambda: text.replace("python3", "pyth\xf6n").encode("latin-1")),
        ("padded", lambda: text.encode() + b" " * 70_000),
        ("nan", lambda: text.replace('"key"', '"x": NaN, "key"').encode()),
        ("duplicate", lambda: text[:-1].encode() + b', "key": 5}'),
    ]
    kind, make = rng.choice(kinds)
    return kind, make()


def _special_files(folder: Path) -> list[Variant]:
    """One of each file kind that is not a regular JSON file."""
    made: list[Variant] = []
    fifo = folder / "kernel-fifo.json"
    os.mkfifo(fifo)
    made.append(Variant(fifo, "fifo", False))
    directory = folder / "kernel-directory.json"
    directory.mkdir()
    made.append(Variant(directory, "directory", False))
    loop = folder / "kernel-loop.json"
    loop.symlink_to(loop.name)
    made.append(Variant(loop, "symlink-loop", False))
    dangling = folder / "kernel-dangling.json"
    dangling.symlink_to(folder / "nowhere.json")
    made.append(Variant(dangling, "dangling-symlink", False))
    for device in ("/dev/zero", "/dev/null", "/dev/urandom", "/dev/tty"):
        if os.path.exists(device):
            link = folder / f"kernel-dev{Path(device).name}.json"
            link.symlink_to(device)
            made.append(Variant(link, f"device:{device}", False))
    sock_path = folder / "kernel-socket.json"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))  # left bound for the test's lifetime (closed at exit)
    _KEEP.append(server)
    made.append(Variant(sock_path, "socket", False))
    huge = folder / "kernel-sparse.json"
    with huge.open("wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # a 200 MB sparse file: never read
    made.append(Variant(huge, "huge-sparse", False))
    return made


_KEEP: list[socket.socket] = []


def generate(folder: Path, count: int = 300) -> list[Variant]:
    """`count` seeded variants plus the special file kinds, in one runtime dir."""
    rng = random.Random(SEED)
    base = _base(free_ports(5))
    variants = _special_files(folder)
    usable = 0
    while len(variants) < count:
        index = len(variants)
        path = folder / f"kernel-fuzz{index:04d}.json"
        if rng.random() < 0.7:
            kind, text = _json_variant(rng, base)
            path.write_text(text, encoding="utf-8")
        else:
            kind, data = _raw_variant(rng, base)
            path.write_bytes(data)
        ok = _well_formed(path)
        if ok:
            usable += 1
            if usable > 12:  # each costs a timeout: a dozen show the path is covered
                path.unlink()
                continue
        variants.append(Variant(path, kind, ok))
    return variants


def _well_formed(path: Path) -> bool:
    from crane_server.kernels.connection import read_connection_file

    try:
        read_connection_file(path)
    except KernelError:
        return False
    return True


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> list[Variant]:
    folder = tmp_path_factory.mktemp("fuzz-runtime")
    made = generate(folder)
    yield made
    for server in _KEEP:
        server.close()


def _summary(label: str, seconds: list[float]) -> str:
    return (
        f"{label}: {len(seconds)} variants, time to the error median "
        f"{statistics.median(seconds) * 1000:.0f} ms, max {max(seconds) * 1000:.0f} ms"
    )


async def test_attach_refuses_every_variant_without_blocking_the_loop(
    variants: list[Variant],
) -> None:
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            before = loop.time()
            await asyncio.sleep(0.01)
            lags.append(loop.time() - before - 0.01)

    tick = asyncio.create_task(ticker())
    seconds: list[float] = []
    kinds: dict[str, int] = {}
    try:
        for variant in variants:
            started = time.perf_counter()
            with pytest.raises(KernelError) as caught:
                session = await asyncio.wait_for(
                    KernelSession.attach(variant.path, timeout=0.5), PER_ERROR_S
                )
                await session.close()  # pragma: no cover - a variant was accepted
            seconds.append(time.perf_counter() - started)
            message = str(caught.value)
            assert message and "\n" not in message, (variant.kind, message)
            assert "Traceback" not in message
            name = type(caught.value).__name__
            kinds[name] = kinds.get(name, 0) + 1
    finally:
        stop.set()
        await tick
    print(_summary("KernelSession.attach", seconds), kinds)
    assert max(seconds) < PER_ERROR_S
    assert max(lags) < 0.5, f"the event loop stalled for {max(lags):.2f} s"
    assert kinds.get("KernelNotFound", 0) >= len(variants) - 12  # parse errors, not timeouts


def test_kernels_lists_every_bad_file_and_goes_on(
    variants: list[Variant], shared_kernel: Any
) -> None:
    folder = variants[0].path.parent
    live = folder / shared_kernel.connection_file.name
    live.write_bytes(shared_kernel.connection_file.read_bytes())
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "crane_server", "kernels", "--json", "--runtime-dir", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    records = {record["connection_file"]: record for record in json.loads(done.stdout)}
    assert records[str(live)]["state"] in ("idle", "busy") and not records[str(live)].get("stale")
    globbed = [v for v in variants if v.path.name.startswith("kernel-")]
    for variant in globbed:
        record = records[str(variant.path)]
        assert record["stale"] is True, variant.kind
        assert record["state"] == ("stale" if variant.usable else "bad"), (variant.kind, record)
        assert record.get("error") and "\n" not in record["error"]
    text = subprocess.run(
        [sys.executable, "-m", "crane_server", "kernels", "--runtime-dir", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert text.returncode == 0 and "Traceback" not in text.stderr
    assert f"bad connection files ({sum(not v.usable for v in globbed)}, skipped):" in text.stdout
    assert str(live) in text.stdout
    print(f"kernels: {len(globbed) + 1} files listed in {elapsed:.1f} s (one process)")


_DRIVER = """
import contextlib, io, json, sys, time, traceback
from crane_server.cli import main
out = []
for command, path in json.loads(sys.stdin.read()):
    if command == "check":
        argv = ["check", "--connection-file", path, "--timeout", "0.5", "-"]
    else:
        argv = ["inspect", "--connection-file", path, "--timeout", "0.5"]
    err, std = io.StringIO(), io.StringIO()
    sys.stdin = io.StringIO("x = 1")
    started = time.perf_counter()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(std):
            code = main(argv)
    except BaseException:
        code, err = "traceback", io.StringIO(traceback.format_exc())
    out.append([command, path, code, err.getvalue(), std.getvalue(), time.perf_counter() - started])
sys.__stdout__.write(json.dumps(out))
"""


def test_check_and_inspect_exit_2_with_one_line(variants: list[Variant]) -> None:
    jobs = [[command, str(v.path)] for v in variants for command in ("check", "inspect")]
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seconds: dict[str, list[float]] = {"check": [], "inspect": []}
    for command, path, code, err, out, elapsed in json.loads(done.stdout):
        assert code == 2, (command, path, code, err)
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("crane-server: error: "), (path, err)
        assert out == "", (command, path, out)
        assert elapsed < PER_ERROR_S, (command, path, elapsed)
        seconds[command].append(elapsed)
    for command, values in seconds.items():
        print(_summary(f"{command} (in one driver process)", values))


def test_one_process_per_file_for_a_sample(variants: list[Variant]) -> None:
    rng = random.Random(SEED)
    by_kind: dict[str, Variant] = {}
    for variant in variants:
        by_kind.setdefault(variant.kind.split(":")[0], variant)
    sample = sorted(by_kind.values(), key=lambda v: v.kind)
    sample = [*sample[:6], *rng.sample(variants, 2)]
    seconds: list[float] = []
    for variant in sample:
        for argv in (
            ["check", "--connection-file", str(variant.path), "--timeout", "0.5", "-"],
            ["inspect", "--connection-file", str(variant.path), "--timeout", "0.5"],
        ):
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "crane_server", *argv],
                input="x = 1",
                capture_output=True,
                text=True,
                timeout=30,
            )
            seconds.append(time.perf_counter() - started)
            assert done.returncode == 2, (variant.kind, argv[0], done.stderr)
            assert done.stdout == ""
            assert done.stderr.startswith("crane-server: error: "), done.stderr
            assert len(done.stderr.splitlines()) == 1, done.stderr
    print(_summary("one process per file (incl. interpreter start)", seconds))
