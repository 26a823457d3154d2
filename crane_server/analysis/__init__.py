"""Daemon-side judgement: the rules tier over the kernel-side checker (engine), the static
checks that need no probe (static_rules), notebook-order annotations (notebook_rules) and
the facts a prompt or a hover shows (facts)."""
