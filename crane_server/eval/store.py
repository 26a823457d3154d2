"""The results file: JSONL, one ResultRow per line, appended as each run finishes.

A killed run leaves at most one torn last line; loading skips lines that do not decode, and
a later row for the same key replaces an earlier one (a retried error).
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from crane_server.errors import CraneError
from crane_server.protocol.eval import ResultRow

RowKey = tuple[str, str, str, str, str, str, int]

_decoder = msgspec.json.Decoder(ResultRow)
_encoder = msgspec.json.Encoder()


class ResultStore:
    """Append-only results file with the set of finished keys."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[RowKey, ResultRow] = {}
        self.skipped_lines = 0
        if path.exists():
            self._load()

    def _load(self) -> None:
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise CraneError(f"{self.path}: cannot read results: {exc}") from exc
        for line in data.splitlines():
            if not line.strip():
                continue
            try:
                row = _decoder.decode(line)
            except msgspec.DecodeError:
                self.skipped_lines += 1
                continue
            self.rows[row.key()] = row
        if data and not data.endswith(b"\n"):
            # A torn last line from a killed run: start the next row on a fresh line.
            self._write(b"\n")

    def is_done(self, key: RowKey, *, retry_errors: bool = False) -> bool:
        row = self.rows.get(key)
        if row is None:
            return False
        return not (row.status == "error" and (retry_errors or row.retry))

    def append(self, row: ResultRow) -> None:
        """Record a finished row durably before anything else happens."""
        self._write(_encoder.encode(row) + b"\n")
        self.rows[row.key()] = row

    def _write(self, data: bytes) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("ab") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise CraneError(f"{self.path}: cannot write results: {exc}") from exc

    def all_rows(self) -> list[ResultRow]:
        return list(self.rows.values())
