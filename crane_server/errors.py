"""The one exception tree of crane-server.

    CraneError                 anything crane-server reports as a clear one-line error
    +-- SettingsError          an invalid setting, config file or command-line value
    +-- DocumentError          a malformed notebook, script or virtual document, an unknown URI
    +-- KernelError            anything about a Jupyter kernel
    |   +-- KernelNotFound     no connection file, a stale file, no kernel for a document
    |   +-- KernelTimeout      a request got no answer in time (dead or hung kernel)
    |   +-- KernelDied         the kernel exited or restarted while we waited
    |   +-- KernelBusy         the shell is running user code; shell probes must wait
    +-- ProbeError             the kernel-side probe failed or answered something unreadable
    |   +-- HelperError        a helper interpreter could not start, timed out or exited
    +-- LlmError               the model tier failed
        +-- LlmTimeout         the endpoint did not answer in time
        +-- LlmReplyInvalid    the model answered something that is not a verdict

Foreign exceptions (zmq, httpx, openai, json, OSError) are translated where they enter,
with ``raise ... from exc``, so callers only ever catch ``CraneError``.
"""

from __future__ import annotations


class CraneError(Exception):
    """Base of every error crane-server reports to a user."""


class SettingsError(CraneError):
    pass


class DocumentError(CraneError):
    pass


class KernelError(CraneError):
    pass


class KernelNotFound(KernelError):
    pass


class KernelTimeout(KernelError):
    pass


class KernelDied(KernelError):
    pass


class KernelBusy(KernelError):
    pass


class ProbeError(CraneError):
    pass


class HelperError(ProbeError):
    pass


class LlmError(CraneError):
    pass


class LlmTimeout(LlmError):
    pass


class LlmReplyInvalid(LlmError):
    pass
