"""The two framings of Jupyter Server's kernel websocket.

JSON (no subprotocol): one text frame, the message as JSON with a `channel` field.
`v1.kernel.websocket.jupyter.org`: one binary frame,

    n (u64 LE) | n offsets (u64 LE) | channel | header | parent_header | metadata | content | buffers…

where offset i is where part i starts and the last offset is where the last part ends.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from jupyter_client.jsonutil import json_default

V1_PROTOCOL = "v1.kernel.websocket.jupyter.org"
_PARTS = ("header", "parent_header", "metadata", "content")

Message = dict[str, Any]


def _dumps(value: Any) -> str:
    return json.dumps(value, default=json_default)


def encode_json(channel: str, message: Message) -> str:
    """A text frame of the legacy JSON framing."""
    return _dumps({**{key: message.get(key, {}) for key in _PARTS}, "channel": channel})


def decode_json(frame: str | bytes) -> tuple[str, Message]:
    """(channel, message) from a JSON frame; ValueError when it is not one."""
    message = json.loads(frame)
    if not isinstance(message, dict):
        raise ValueError("a kernel message is a JSON object")
    channel = message.pop("channel", None)
    if not isinstance(channel, str):
        raise ValueError("no channel in the kernel message")
    return channel, message


def encode_v1(channel: str, message: Message) -> bytes:
    """A binary frame of the v1 subprotocol."""
    parts = [channel.encode(), *(_dumps(message.get(key, {})).encode() for key in _PARTS)]
    parts += [bytes(buffer) for buffer in message.get("buffers", [])]
    offsets = [8 * (len(parts) + 2)]
    for part in parts:
        offsets.append(offsets[-1] + len(part))
    head = len(offsets).to_bytes(8, "little") + b"".join(o.to_bytes(8, "little") for o in offsets)
    return head + b"".join(parts)


def decode_v1(frame: bytes) -> tuple[str, Message]:
    """(channel, message) from a v1 binary frame; ValueError when it is not one."""
    if len(frame) < 8:
        raise ValueError("v1 frame too short")
    count = int.from_bytes(frame[:8], "little")
    if count < 2 + len(_PARTS) or len(frame) < 8 * (count + 1):
        raise ValueError("v1 frame with too few parts")
    offsets = [int.from_bytes(frame[8 * (i + 1) : 8 * (i + 2)], "little") for i in range(count)]
    if offsets != sorted(offsets) or offsets[-1] > len(frame):
        raise ValueError("v1 frame with bad offsets")
    parts = [frame[start:stop] for start, stop in itertools.pairwise(offsets)]
    channel = parts[0].decode()
    message: Message = {key: json.loads(part) for key, part in zip(_PARTS, parts[1:])}
    message["buffers"] = parts[1 + len(_PARTS) :]
    return channel, message
