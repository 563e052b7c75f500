"""The toolchain's one error type: a compiler, assembler or emulator is missing, or it failed.

The command line reports it like bad input (one line, exit status 2): the fix is on the user's side
(install the tool, or fix a flag), and the message says what to run.

    raise ToolError("target neon needs qemu-aarch64: install it with `bash scripts/setup.sh`")
"""

from __future__ import annotations


class ToolError(Exception):
    """A tool is missing, cannot run, or exited non-zero; the message names it and what to do."""


class BuildError(ToolError):
    """A compiler failed; the message has the command and the compiler's first lines."""
