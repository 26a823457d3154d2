"""Undo jupyterlab-lsp's rewriting of IPython magics into `get_ipython()` calls.

jupyterlab-lsp replaces `%name args` with `get_ipython().run_line_magic("name", "args")`,
`!cmd` with `get_ipython().getoutput("cmd")`, `obj?` with a `pinfo` line magic, and a
`%%name args` cell magic with a `run_cell_magic("name", "args", <triple-quoted body>)` call that
keeps the body's lines. Every rewrite keeps the number of lines, so line numbers of the
restored cell equal those of the virtual document.
"""

from __future__ import annotations

import re

_ARG = r'"((?:[^"\\]|\\.)*)"'
_LINE_MAGIC = re.compile(r"get_ipython\(\)\.run_line_magic\(" + _ARG + r",\s*" + _ARG + r"\)")
_SHELL = re.compile(r"get_ipython\(\)\.(?:getoutput|system)\(" + _ARG + r"\)")
_CELL_MAGIC = re.compile(
    r"^get_ipython\(\)\.run_cell_magic\(" + _ARG + r",\s*" + _ARG + r',\s*"""(.*)$'
)
_CELL_MAGIC_END = re.compile(r'"""\)\s*$')


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _restore_line_magic(match: re.Match[str]) -> str:
    name, args = _unescape(match.group(1)), _unescape(match.group(2))
    if name == "pinfo":
        return f"{args}?"
    if name == "pinfo2":
        return f"{args}??"
    return f"%{name} {args}".rstrip()


def _restore_shell(match: re.Match[str]) -> str:
    return "!" + _unescape(match.group(1))


def restore_magics(text: str) -> str:
    """Return the cell as the user wrote it, from its jupyterlab-lsp virtual form."""
    lines = text.split("\n")
    if not lines or "get_ipython()" not in text:
        return text
    first = _CELL_MAGIC.match(lines[0])
    if first is not None:
        name, args, body_start = (
            _unescape(first.group(1)),
            _unescape(first.group(2)),
            first.group(3),
        )
        header = f"%%{name} {args}".rstrip()
        body = [body_start, *lines[1:]]
        body[-1] = _CELL_MAGIC_END.sub("", body[-1])
        if len(lines) == 1:
            return header
        # the header's own line carried the body's first line only when it was not empty
        return "\n".join([header, *body[1:]]) if not body_start else "\n".join([header, *body])
    restored = [
        _SHELL.sub(_restore_shell, _LINE_MAGIC.sub(_restore_line_magic, line)) for line in lines
    ]
    return "\n".join(restored)
