"""A test that needs an external tool: skipped with the reason where it is missing — unless
CIPHERSPEC_REQUIRE_TOOLS=1 (CI, scripts/test.sh), where a missing tool is a failure.

    require_tool("openssl", "openssl")      # the tool, the Debian package that has it
"""
from __future__ import annotations

import os
import shutil

import pytest


def require_tool(tool: str, package: str) -> str:
    """The tool's path; or a skip (a failure under CIPHERSPEC_REQUIRE_TOOLS=1) naming what to install."""
    path = shutil.which(tool)
    if path:
        return path
    msg = f"needs {tool} (Debian: apt-get install {package}; bash scripts/setup.sh installs it)"
    if os.environ.get("CIPHERSPEC_REQUIRE_TOOLS") == "1":
        pytest.fail("CIPHERSPEC_REQUIRE_TOOLS=1 and the test " + msg)
    pytest.skip(msg)
