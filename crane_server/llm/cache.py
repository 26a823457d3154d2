"""Answers cached by what was sent: an unchanged cell in an unchanged state costs no tokens."""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from pathlib import Path

import msgspec

from crane_server.llm.prompts import Prompt
from crane_server.protocol.llm import LlmOutcome
from crane_server.settings import LlmSettings

log = logging.getLogger(__name__)
_DECODER = msgspec.json.Decoder(LlmOutcome)


def cache_key(prompt: Prompt, settings: LlmSettings, setting: str, task: str) -> str:
    """Hash of the exact prompt (cell text, executed cells, snapshot) and the model asked."""
    digest = hashlib.sha256()
    for part in (
        settings.model,
        settings.base_url or "",
        settings.api_style,
        setting,
        task,
        prompt.system,
        prompt.user,
    ):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:32]


class LlmCache:
    """An in-memory LRU of outcomes, optionally backed by one JSON file per key."""

    def __init__(self, directory: Path | None = None, *, max_entries: int = 256) -> None:
        self.directory = directory
        self.max_entries = max_entries
        self._memory: OrderedDict[str, LlmOutcome] = OrderedDict()

    def get(self, key: str) -> LlmOutcome | None:
        outcome = self._memory.get(key)
        if outcome is not None:
            self._memory.move_to_end(key)
            return outcome
        if self.directory is None:
            return None
        path = self.directory / f"{key}.json"
        try:
            outcome = _DECODER.decode(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, msgspec.DecodeError) as exc:
            log.warning("ignoring unreadable LLM cache entry %s: %s", path, exc)
            return None
        self._remember(key, outcome)
        return outcome

    def put(self, key: str, outcome: LlmOutcome) -> None:
        self._remember(key, outcome)
        if self.directory is None:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            temporary = self.directory / f".{key}.tmp"
            temporary.write_bytes(msgspec.json.encode(outcome))
            temporary.replace(self.directory / f"{key}.json")
        except OSError as exc:
            log.warning("cannot write the LLM cache in %s: %s", self.directory, exc)

    def __len__(self) -> int:
        return len(self._memory)

    def _remember(self, key: str, outcome: LlmOutcome) -> None:
        self._memory[key] = outcome
        self._memory.move_to_end(key)
        while len(self._memory) > self.max_entries:
            self._memory.popitem(last=False)
