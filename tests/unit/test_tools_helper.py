"""tests/support/tools.py: a missing tool skips with what to install, and fails under
CIPHERSPEC_REQUIRE_TOOLS=1; a missing GPU skips, and fails under CIPHERSPEC_REQUIRE_GPU=1."""

from __future__ import annotations

import pytest
import tools

NO_SUCH = "cipherspec-no-such-tool"


def test_a_present_tool_gives_its_path():
    assert tools.require("sh")["sh"].endswith("/sh")


def test_a_missing_tool_skips_and_says_what_to_install(monkeypatch):
    monkeypatch.delenv("CIPHERSPEC_REQUIRE_TOOLS", raising=False)
    with pytest.raises(pytest.skip.Exception, match=rf"needs {NO_SUCH} \(Debian: .*scripts/setup.sh"):
        tools.require("sh", NO_SUCH)
    monkeypatch.setattr(tools.shutil, "which", lambda name: None)  # nothing on PATH
    with pytest.raises(pytest.skip.Exception, match=r"needs qemu-aarch64 \(Debian: qemu-user"):
        tools.require("qemu-aarch64")


def test_a_missing_tool_fails_under_require_tools(monkeypatch):
    monkeypatch.setenv("CIPHERSPEC_REQUIRE_TOOLS", "1")
    with pytest.raises(pytest.fail.Exception, match=rf"CIPHERSPEC_REQUIRE_TOOLS=1 and the test needs {NO_SUCH}"):
        tools.require(NO_SUCH)


def test_nvcc_found_as_the_toolchain_finds_it(monkeypatch):
    monkeypatch.setenv("CIPHERSPEC_NVCC", "/nonexistent/nvcc")  # an explicit path that is not there
    monkeypatch.delenv("CIPHERSPEC_REQUIRE_TOOLS", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs nvcc"):
        tools.require_nvcc()
    monkeypatch.setenv("CIPHERSPEC_REQUIRE_TOOLS", "1")
    with pytest.raises(pytest.fail.Exception, match="needs nvcc"):
        tools.require_nvcc()


def test_gpu_tests_skip_without_a_gpu_unless_required(monkeypatch):
    monkeypatch.setattr(tools, "_gpu", lambda: (False, "no NVIDIA GPU on this machine"))
    monkeypatch.setenv("CIPHERSPEC_REQUIRE_TOOLS", "1")  # CI: tools required, but it has no GPU
    monkeypatch.delenv("CIPHERSPEC_REQUIRE_GPU", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no NVIDIA GPU on this machine"):
        tools.require_gpu()
    monkeypatch.setenv("CIPHERSPEC_REQUIRE_GPU", "1")
    with pytest.raises(pytest.fail.Exception, match="CIPHERSPEC_REQUIRE_GPU=1"):
        tools.require_gpu()
    monkeypatch.setattr(tools, "_gpu", lambda: (True, ""))
    assert tools.require_gpu() is None
