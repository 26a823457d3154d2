"""Ask an OpenAI-compatible endpoint for a verdict: Responses API or Chat Completions.

No base_url means OpenAI's Responses API with strict JSON-schema output; a base_url means
Chat Completions (JSON schema, falling back to a JSON object, then plain text when the
endpoint rejects the format) unless the api_style is "responses" (Azure). Retries 429 and
5xx with bounded backoff; every foreign error leaves this module as an LlmError. Every
error and reply text is redacted (`crane_server.llm.redact`) before it leaves: an endpoint
that echoes the API key cannot pass it on to the CLI, reports, the editor or the log.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import openai  # noqa: TID251  (the llm package is where openai may be imported)

from crane_server.errors import LlmError, LlmReplyInvalid, LlmTimeout
from crane_server.llm.redact import (
    RedactedCause,
    install_log_redaction,
    redact,
    remember_secret,
)
from crane_server.llm.reply import parse_verdict, strict_schema
from crane_server.protocol.llm import LlmUsage
from crane_server.protocol.verdict import Verdict
from crane_server.settings import LlmSettings

OPENAI_URL = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"  # local servers (Ollama) accept any key
CHAT_FORMATS = ("json_schema", "json_object", "text")
SCHEMA_NAME = "crane_verdict"


@dataclass(frozen=True)
class LlmReply:
    """The decoded verdict, the raw text it came from, and what the call cost."""

    verdict: Verdict
    text: str
    usage: LlmUsage


class LlmClient:
    """One endpoint and model; safe to reuse across checks, cancellable at any await."""

    def __init__(
        self, settings: LlmSettings, *, backoff_base: float = 0.5, backoff_cap: float = 8.0
    ) -> None:
        if not settings.configured:
            raise LlmError(
                "no API key: set CRANE_LLM_API_KEY (or OPENAI_API_KEY), run "
                "`crane-server config set --api-key ...`, or give a local --base-url"
            )
        self.settings = settings
        remember_secret(settings.api_key)
        install_log_redaction()
        self._backoff_base = backoff_base
        self._backoff_cap = backoff_cap
        self._chat_format = 0  # index into CHAT_FORMATS; lowered when the endpoint refuses one
        timeout = openai.Timeout(settings.timeout, connect=min(10.0, settings.timeout))
        self._client = openai.AsyncOpenAI(
            api_key=settings.api_key or PLACEHOLDER_KEY,
            base_url=settings.base_url or OPENAI_URL,
            timeout=timeout,
            max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(timeout=timeout),
        )

    @property
    def endpoint(self) -> str:
        return self.settings.base_url or OPENAI_URL

    async def aclose(self) -> None:
        await self._client.close()

    async def __aenter__(self) -> LlmClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def ask(self, system: str, user: str, *, task: str = "joint") -> LlmReply:
        """Send one prompt; return the verdict. Raises LlmTimeout, LlmReplyInvalid, LlmError.

        The reply text and any error message are redacted; an error's foreign cause is
        replaced by its redacted text (a RedactedCause), so a logged traceback holds no key.
        """
        try:
            return await self._ask(system, user, task)
        except LlmError as exc:
            cause = exc.__cause__
            raise type(exc)(redact(str(exc))) from (
                None if cause is None else RedactedCause.of(cause)
            )

    async def _ask(self, system: str, user: str, task: str) -> LlmReply:
        started = time.perf_counter()
        attempts = 0
        while True:
            attempts += 1
            try:
                text, usage = await self._call_once(system, user, task)
                break
            except openai.BadRequestError as exc:
                if self._downgrade_format(exc):
                    attempts -= 1
                    continue
                raise LlmError(f"the endpoint rejected the request (400): {_detail(exc)}") from exc
            except (openai.RateLimitError, openai.InternalServerError) as exc:
                if attempts > self.settings.max_retries:
                    raise LlmError(
                        f"{self.endpoint} kept failing ({exc.status_code}) after "
                        f"{attempts} attempts: {_detail(exc)}"
                    ) from exc
                await asyncio.sleep(self._delay(exc, attempts))
            except openai.APITimeoutError as exc:
                raise LlmTimeout(
                    f"{self.endpoint} did not answer within {self.settings.timeout:g} s"
                ) from exc
            except openai.APIConnectionError as exc:
                raise LlmError(f"cannot reach {self.endpoint}: {exc}") from exc
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise LlmError(
                    f"{self.endpoint} rejected the API key ({exc.status_code}); check it with "
                    "`crane-server config show`"
                ) from exc
            except openai.NotFoundError as exc:
                raise LlmError(
                    f"not found (404) at {self.endpoint}: is the model "
                    f"{self.settings.model!r} and the base_url right? {_detail(exc)}"
                ) from exc
            except openai.APIStatusError as exc:
                raise LlmError(
                    f"{self.endpoint} answered {exc.status_code}: {_detail(exc)}"
                ) from exc
            except openai.APIResponseValidationError as exc:
                raise LlmReplyInvalid(f"{self.endpoint} sent an unreadable response") from exc
            except openai.OpenAIError as exc:
                raise LlmError(f"the model call failed: {exc}") from exc
            except ValueError as exc:  # a body that is not JSON
                raise LlmReplyInvalid(f"{self.endpoint} sent an unreadable response") from exc
        usage.latency_ms = (time.perf_counter() - started) * 1000.0
        usage.attempts = attempts
        text = redact(text)
        return LlmReply(verdict=parse_verdict(text), text=text, usage=usage)

    async def _call_once(self, system: str, user: str, task: str) -> tuple[str, LlmUsage]:
        if self.settings.api_style == "responses":
            return await self._call_responses(system, user, task)
        return await self._call_chat(system, user, task)

    async def _call_responses(self, system: str, user: str, task: str) -> tuple[str, LlmUsage]:
        response: Any = await self._client.responses.create(
            model=self.settings.model,
            instructions=system,
            input=user,
            store=False,
            text={
                "format": {
                    "type": "json_schema",
                    "name": SCHEMA_NAME,
                    "schema": strict_schema(task),
                    "strict": True,
                }
            },
        )
        if not hasattr(response, "output_text"):
            raise LlmReplyInvalid(f"{self.endpoint} sent something that is not a response")
        usage = getattr(response, "usage", None)
        return str(response.output_text or ""), LlmUsage(
            model=self.settings.model,
            api_style="responses",
            input_tokens=getattr(usage, "input_tokens", None),
            output_tokens=getattr(usage, "output_tokens", None),
            total_tokens=getattr(usage, "total_tokens", None),
            response_format="json_schema",
        )

    async def _call_chat(self, system: str, user: str, task: str) -> tuple[str, LlmUsage]:
        chosen = CHAT_FORMATS[self._chat_format]
        extra: dict[str, Any] = {}
        if chosen == "json_schema":
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": SCHEMA_NAME, "schema": strict_schema(task), "strict": True},
            }
        elif chosen == "json_object":
            extra["response_format"] = {"type": "json_object"}
        completion: Any = await self._client.chat.completions.create(
            model=self.settings.model,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            **extra,
        )
        choices = getattr(completion, "choices", None)
        if not choices:
            raise LlmReplyInvalid(f"{self.endpoint} sent a completion without choices")
        message = choices[0].message
        text = message.content or ""
        if not text.strip():  # some gateways put the whole answer in a reasoning field
            text = str((getattr(message, "model_extra", None) or {}).get("reasoning_content") or "")
        usage = getattr(completion, "usage", None)
        return text, LlmUsage(
            model=self.settings.model,
            api_style="chat",
            input_tokens=getattr(usage, "prompt_tokens", None),
            output_tokens=getattr(usage, "completion_tokens", None),
            total_tokens=getattr(usage, "total_tokens", None),
            response_format=chosen,
        )

    def _downgrade_format(self, exc: openai.BadRequestError) -> bool:
        """After a 400 about the output format, use the next simpler one; False if none left."""
        if self.settings.api_style != "chat" or self._chat_format >= len(CHAT_FORMATS) - 1:
            return False
        detail = _detail(exc).lower()
        if not any(word in detail for word in ("response_format", "json", "schema", "format")):
            return False
        self._chat_format += 1
        return True

    def _delay(self, exc: openai.APIStatusError, attempt: int) -> float:
        headers = exc.response.headers
        for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            value = headers.get(name)
            if value is not None:
                try:
                    return min(max(float(value) * scale, 0.0), self._backoff_cap)
                except ValueError:
                    pass
        return float(min(self._backoff_base * 2 ** (attempt - 1), self._backoff_cap))


def _detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:300]
    return str(exc.message)[:300]
