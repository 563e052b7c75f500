"""`cipherspec kat ../shared/vectors/*.txt --target neon` passes under QEMU."""

from __future__ import annotations

import io

import pytest
from paths import VECTORS
from tools import require

from driver.cli import run

pytestmark = pytest.mark.qemu


def test_kat_files_pass_on_neon():
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    out = io.StringIO()
    files = sorted(str(p) for p in VECTORS.glob("*.txt"))
    assert run(["kat", *files, "--target", "neon"], out) == 0, out.getvalue()
    assert " 0 failed" in out.getvalue().splitlines()[-1]
