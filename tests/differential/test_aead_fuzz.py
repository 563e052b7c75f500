"""The AEAD differential fuzzer (tests/data/aead_fuzz.cc) for a few seconds: the generated libraries' GCM, CCM, XTS
and CMAC against OpenSSL, libgcrypt and Crypto++ on random keys, IVs, AAD, lengths, chunkings and tampered inputs
(bench/fuzz/aead.sh runs it for hours).  Its self-test: with one bit of our GCM tag flipped (CS_FUZZ_INJECT=1) the
comparison with the peers must fail, so a pass means the comparison ran."""

from __future__ import annotations

import os
import subprocess

import pytest
from aead_fuzz import build_fuzzer, missing_tools
from tools import missing


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory):
    why = missing_tools()
    if why:
        missing("the AEAD fuzzer's tools", why)
    return build_fuzzer(tmp_path_factory.mktemp("fuzz"))


def test_libraries_agree_with_the_peers(fuzzer, tmp_path):
    p = subprocess.run(
        [str(fuzzer), "-max_total_time=8", "-seed=7", "-max_len=4096", f"-artifact_prefix={tmp_path}/"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    done = [line for line in p.stderr.splitlines() if line.startswith("Done ")]
    assert done and int(done[0].split()[1]) > 1000, p.stderr[-1000:]


def test_a_wrong_tag_is_caught(fuzzer, tmp_path):
    env = dict(os.environ, CS_FUZZ_INJECT="1")
    p = subprocess.run(
        [str(fuzzer), "-runs=5000", "-seed=7", f"-artifact_prefix={tmp_path}/"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode != 0 and "tag differs from" in p.stderr, p.stderr[-2000:]
    assert list(tmp_path.glob("crash-*")), "libFuzzer keeps the failing input as a reproducer"
