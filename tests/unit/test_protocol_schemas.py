"""The JSON Schemas in protocol/ must match the msgspec Structs they are generated from."""

from __future__ import annotations

import pytest

from crane_server.protocol.schema import PROTOCOL_DIR, render_schemas


@pytest.mark.parametrize("file_name", sorted(render_schemas()))
def test_schema_file_is_up_to_date(file_name: str) -> None:
    path = PROTOCOL_DIR / file_name
    assert path.exists(), f"{file_name} missing: run python -m crane_server.protocol.schema"
    assert path.read_text(encoding="utf-8") == render_schemas()[file_name], (
        f"{file_name} is stale: run python -m crane_server.protocol.schema"
    )
