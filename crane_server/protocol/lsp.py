"""The language server's extensions to LSP: notification, command arguments and settings.

Documented in `protocol/README.md`; the JSON Schemas are generated from these Structs.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

KernelState = Literal["idle", "busy", "starting", "restarting", "dead", "unknown", "none"]
BindingReason = Literal["command", "hint", "notebook-path", "history", "only-kernel", "none"]
DiagnosticsMode = Literal["auto", "push", "pull"]
LlmTrigger = Literal["command", "auto"]
# Whether cells are run in the sealed twin now: "waiting" = afterFirstRun, no cell ran yet.
DryRunState = Literal["on", "off", "waiting"]


class KernelStatus(msgspec.Struct, kw_only=True):
    """`crane/kernelStatus` (server -> client): which kernel a document is bound to, and why.

    `detail` is one human sentence: the kernel and the rule that chose it, or why none was.
    Also the answer of `crane.status` (argument: `{"uri": ...}`), which status items poll.
    `live_state_only`: the kernel's state was not built by this notebook's cells, so every
    cell is judged against the live state (said once, in the status and the hover).
    """

    uri: str
    kernel_id: str | None = None
    connection_file: str | None = None
    state: KernelState = "none"
    reason: BindingReason = "none"
    execution_count: int | None = None
    detail: str = ""
    dry_run: DryRunState = "off"
    live_state_only: bool = False


class AttachKernelArgs(msgspec.Struct, kw_only=True):
    """`crane.attachKernel` argument: bind `uri` to a kernel (a file wins over an id).

    With `server_url`, `kernel_id` names a kernel of that Jupyter Server (or Enterprise
    Gateway); its token is read from the server's environment variable `token_env`
    (default CRANE_JUPYTER_TOKEN) or a `?token=` in the URL, never sent over LSP.
    """

    uri: str
    connection_file: str | None = None
    kernel_id: str | None = None
    server_url: str | None = None
    token_env: str | None = None


class KernelListEntry(msgspec.Struct, kw_only=True):
    """One item of `crane.listKernels`'s result."""

    kernel_id: str | None
    connection_file: str
    notebook_path: str | None = None
    state: str = "unknown"
    bound_documents: list[str] = msgspec.field(default_factory=list)


class CellArgs(msgspec.Struct, kw_only=True):
    """`crane.check` / `crane.showPrompt` argument: a cell by URI and a line inside it.

    For notebooks `uri` is the cell's URI (line may be omitted); for virtual documents and
    percent scripts it is the document's URI and `line` (0-based) picks the cell.
    """

    uri: str
    line: int = 0


class CheckCommandResult(msgspec.Struct, kw_only=True):
    """`crane.check`'s result: what the LLM said about the cell."""

    uri: str
    crash: bool | None = None
    diagnoses: int = 0
    error: str | None = None


class LlmOptions(msgspec.Struct, kw_only=True, rename="camel"):
    """The `llm` group of the settings."""

    trigger: LlmTrigger = "command"
    model: str | None = None
    setting: str = "runtime"
    privacy: Literal["full", "schema", "types"] | None = None


DebounceMs = Annotated[int, msgspec.Meta(ge=0, le=60_000)]
TimeoutS = Annotated[float, msgspec.Meta(ge=0.1, le=600.0)]
BudgetS = Annotated[float, msgspec.Meta(ge=0.1, le=30.0)]
# afterFirstRun: a cell runs in a twin only once the user ran a cell of that notebook in
# that kernel (opening a notebook never runs its code); always; off.
DryRunMode = Literal["afterFirstRun", "always", "off"]
HeartbeatS = Annotated[float, msgspec.Meta(ge=0.5, le=3600.0)]
ServerUrl = Annotated[str, msgspec.Meta(pattern=r"^https?://[^?#]+$", max_length=2048)]
EnvName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=128)]
MaxServers = 16


class RemoteServer(msgspec.Struct, kw_only=True, rename="camel", forbid_unknown_fields=True):
    """One Jupyter Server (or Enterprise Gateway, or a JupyterHub user's server) of `servers`.

    `url` is the base URL, without a query: a token never travels over LSP. The token is read
    by the language server from its environment variable `tokenEnv`, else from the config
    file's `jupyter_servers` entry with the same URL, else from CRANE_JUPYTER_TOKEN. Extra
    headers (`Authorization: Bearer ...`, a proxy's access header) come from the JSON object
    in the variable `headersEnv`, else from the config entry's `headers`.
    """

    url: ServerUrl
    token_env: EnvName | None = None
    headers_env: EnvName | None = None


class ServerSettings(msgspec.Struct, kw_only=True, rename="camel"):
    """`initializationOptions` and `workspace/didChangeConfiguration` `settings.crane`.

    Keys are camelCase (`connectionFile`); the snake_case spelling is accepted too. An
    unknown key or a value of the wrong type or out of its bounds is reported once and the
    default is used. `servers` lists Jupyter servers by URL only: their tokens come from the
    language server's environment or config file, never from the settings.
    """

    debounce_ms: DebounceMs = 300
    diagnostics: DiagnosticsMode = "push"
    connection_file: str | None = None
    kernel_id: str | None = None
    hover: bool = True
    information_for_executed: bool = True
    check_timeout_s: TimeoutS = 5.0
    kernel_heartbeat_s: HeartbeatS = 5.0
    llm: LlmOptions = msgspec.field(default_factory=LlmOptions)
    servers: Annotated[list[RemoteServer], msgspec.Meta(max_length=MaxServers)] = msgspec.field(
        default_factory=list
    )
    server_timeout_s: TimeoutS = 5.0
    # A cell that first imports a library is walked again in a helper interpreter started
    # with the kernel's Python (kernels on this machine only); false: judged without it.
    helper_interpreter: bool = True
    # The dry run: a cell runs in a sealed copy-on-write twin of the idle kernel.
    dry_run: DryRunMode = "afterFirstRun"
    dry_run_budget_s: BudgetS = 3.0
    # One twin runs a notebook's pending cells in order: dry_run_budget_s per cell, at most
    # this much for the whole pass (the same 10 s as `check --ahead`).
    lookahead_budget_s: BudgetS = 10.0
