"""The NEON library's modes (<cipher>_neon_modes.h: GCM/GMAC, CCM, XTS, CMAC) under qemu-aarch64, against
the oracle (cipherspec.aead over the interpreter) and, for AES-128, the C library.

Every kernel and GHASH variant runs: feature ceilings in set_key_isa ("neon": portable kernels and
portable GHASH; "pmull": portable kernels, PMULL GHASH; "crypto": AESE kernels, portable GHASH; None:
the CPU's best) in ONE QEMU run per cipher, then the HWCAP path itself (-cpu max / cortex-a76 and the
CIPHERSPEC_NEON_NO_PMULL / NO_CRYPTO overrides).  Lengths 0, 1, 15, 16, 17, the 8-block reduction and
the kernel group +-1, the 4 KiB stitching chunk +-1 (and 8 KiB +-1); IVs of 12 and other lengths, one solved so that
inc32 wraps mid-message; tampering -> CIPHERSPEC_ERR_AUTH with the output zeroed.  Builds: aes128 and
pipo64_128 as test_neon_dispatch.py does (same files, one cached build), lea128."""

from __future__ import annotations

import random
import subprocess

import pytest
from ci_scope import full_matrix
from gcm_iv import wrapping_iv
from neon_support import dispatched
from shipped import shipped_registry
from tools import require

from cipherspec import aead
from cipherspec.errors import AuthenticationError, UsageError
from driver.targets import make_cipher
from runtime.c_abi import ERR_AUTH, ERR_ISA, ERR_KEY_LENGTH, ERR_PARAM
from runtime.neon_modes import ModeRequest

pytestmark = pytest.mark.qemu
REG = shipped_registry()
ISAS = (None, "neon", "pmull", "crypto")


def libs(name: str):
    """(NEON dispatched library on -cpu max, interpreter) for a cipher, made once per session."""
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    c, ref = dispatched(name)
    c.qemu_cpu, c.qemu_env = "max", None
    return c, ref


def _wrapping_iv(ref, rk, rnd: random.Random) -> bytes:
    """A 16-byte IV whose J0 = ((IV H) ^ L) H ends in 0xfffffff0: inc32 wraps after 15 blocks."""
    h = int.from_bytes(ref.encrypt_blocks(rk, bytes(16)).tobytes(), "big")
    return wrapping_iv(h, rnd.randbytes(12), 0xFFFFFFF0)


def _cases(c, ref, rnd: random.Random):
    """(request without isa, expected (status, output, tag)) for one key of each mode; decryptions of
    tampered messages expect ERR_AUTH and zeros."""
    kb, g = c.key_bytes, c.emitted.group_blocks * c.block_bytes
    key = rnd.randbytes(kb)
    rk = ref.expand_key(key)
    out = []
    if c.block_bytes == 16:
        lengths = sorted({0, 1, 15, 16, 17, 127, 128, 129, g - 16, g - 1, g, g + 1, g + 16, 4095, 4097, 8191, 8193})
        ivs, aads, tags = (12, 12, 1, 16, 60), (0, 1, 16, 17, 130), (16, 16, 12, 4, 15)
        for i, n in enumerate(lengths):
            iv, aad, data = rnd.randbytes(ivs[i % 5]), rnd.randbytes(aads[i % 5]), rnd.randbytes(n)
            ct, tag = aead.gcm_encrypt(ref, rk, iv, aad, data, tags[i % 5])
            out.append((ModeRequest("gcm_encrypt", key, iv, aad, data, len(tag)), (0, ct, tag)))
            out.append((ModeRequest("gcm_decrypt", key, iv, aad, ct, tag), (0, data, b"")))
            chunk = (1, 7, 33, 200, 4096)[i % 5]
            out.append((ModeRequest("gcm_stream_encrypt", key, iv, aad, data, len(tag), chunk=chunk), (0, ct, tag)))
            out.append((ModeRequest("gcm_stream_decrypt", key, iv, aad, ct, tag, chunk=chunk), (0, data, b"")))
            if n:  # tampered: ciphertext, tag, AAD
                bad = bytearray(ct)
                bad[rnd.randrange(n)] ^= 1 << rnd.randrange(8)
                out.append((ModeRequest("gcm_decrypt", key, iv, aad, bytes(bad), tag), (ERR_AUTH, bytes(n), b"")))
                out.append((ModeRequest("gcm_decrypt", key, iv, aad + b"!", ct, tag), (ERR_AUTH, bytes(n), b"")))
            out.append(
                (
                    ModeRequest("gcm_decrypt", key, iv, aad, ct, bytes([tag[0] ^ 0x80]) + tag[1:]),
                    (ERR_AUTH, bytes(n), b""),
                )
            )
        for n in (0, 1, 16, 17, 300):
            iv, aad = rnd.randbytes(12), rnd.randbytes(n)
            out.append((ModeRequest("gmac", key, iv, aad, b"", 16), (0, b"", aead.gmac(ref, rk, iv, aad))))
        data = rnd.randbytes(40 * 16 + 7)
        iv = _wrapping_iv(ref, rk, rnd)
        ct, tag = aead.gcm_encrypt(ref, rk, iv, b"w", data)
        out.append((ModeRequest("gcm_encrypt", key, iv, b"w", data, 16), (0, ct, tag)))
        out.append((ModeRequest("gcm_stream_encrypt", key, iv, b"w", data, 16, chunk=100), (0, ct, tag)))
        for nonce_len, n, a, t in (
            (7, 0, 0, 4),
            (8, 1, 5, 8),
            (12, 17, 300, 16),
            (13, 2 * g + 3, 24, 10),
            (11, 8200, 1, 16),
        ):
            nonce, aad, data = rnd.randbytes(nonce_len), rnd.randbytes(a), rnd.randbytes(n)
            ct, tag = aead.ccm_encrypt(ref, rk, nonce, aad, data, t)
            out.append((ModeRequest("ccm_encrypt", key, nonce, aad, data, t), (0, ct, tag)))
            out.append((ModeRequest("ccm_decrypt", key, nonce, aad, ct, tag), (0, data, b"")))
            out.append(
                (
                    ModeRequest("ccm_decrypt", key, nonce, aad, ct, bytes([tag[0] ^ 1]) + tag[1:]),
                    (ERR_AUTH, bytes(n), b""),
                )
            )
        xkey = key + rnd.randbytes(kb)
        for n in (16, 17, 31, 32, 33, 100, g + 5, 128 * 16 + 17):  # the last: past aead.c's 128-block batch
            tweak, data = rnd.randbytes(16), rnd.randbytes(n)
            ct = aead.xts_encrypt(ref, xkey, tweak, data)
            out.append((ModeRequest("xts_encrypt", xkey, tweak, b"", data), (0, ct, b"")))
            out.append((ModeRequest("xts_decrypt", xkey, tweak, b"", ct), (0, data, b"")))
    b = c.block_bytes
    for n, t in ((0, b), (1, b), (b - 1, 4), (b, b), (b + 1, b), (2 * b + 1, 1), (g + 3, b)):
        msg = rnd.randbytes(n)
        tag = aead.cmac(ref, rk, msg, t)
        out.append((ModeRequest("cmac", key, data=msg, tag=t), (0, b"", tag)))
        out.append((ModeRequest("cmac_stream", key, data=msg, tag=t, chunk=5), (0, b"", tag)))
    return out


_CASES: dict = {}


def cases_of(name: str):
    """_cases for a cipher's library, computed once per session (the oracle's share of the time)."""
    if name not in _CASES:
        c, ref = dispatched(name)  # not libs(): the caller's qemu_cpu / qemu_env stay as they are
        _CASES[name] = _cases(c, ref, random.Random(name))
    return _CASES[name]


def _with_isa(r: ModeRequest, isa: str | None) -> ModeRequest:
    return ModeRequest(r.op, r.key, r.iv, r.aad, r.data, r.tag, isa, r.chunk)


def _check(c, cases, isas) -> None:
    requests = [_with_isa(r, isa) for isa in isas for r, _ in cases]
    got = c.run_modes(requests)
    for r, g, (_, want) in zip(requests, got, [case for _ in isas for case in cases]):
        what = f"{c.name} {r.op} isa={r.isa} data={len(r.data)} iv={len(r.iv)} aad={len(r.aad)} chunk={r.chunk}"
        assert g == want, what


# CI: AES-128 (AESE kernels) and LEA-128 (one variant); CIPHERSPEC_FULL_MATRIX=1: every shipped 128-bit cipher
FULL = [n for n in REG.names() if REG.module(n).block.nbytes == 16 and n not in ("aes128", "lea128")]


@pytest.mark.parametrize("name", ["aes128", "lea128"] + (FULL if full_matrix() else []))
def test_modes_match_oracle_on_every_variant(name):
    c, ref = libs(name)
    key = bytes(range(c.key_bytes))
    infos = {isa: c.modes_info(key, isa) for isa in ISAS}
    # the ceiling's kernel features (-cpu max has them all) and GHASH: the first variant that fits
    allowed = {None: ({"crypto", "sha3"}, "pmull"), "neon": (set(), "portable"), "pmull": (set(), "pmull")}
    allowed["crypto"] = ({"crypto"}, "portable")
    for isa, (features, ghash) in allowed.items():
        kernel = next(v.schedule.name for v in c.variants if set(v.features) <= features)
        assert infos[isa] == (kernel, ghash), isa
    _check(c, cases_of(name), ISAS)


def test_modes_match_the_c_library():
    """AES-128: the NEON library's bytes = the C library's (one definition of each mode, two targets)."""
    c, ref = libs("aes128")
    clib = make_cipher(REG, "aes128", None, "c")
    rnd = random.Random(7)
    cases = _cases(c, ref, rnd)
    got = c.run_modes([r for r, _ in cases])
    for (r, _), (status, out, tag) in zip(cases, got):
        if status:
            continue
        rk = clib.expand_key(r.key[: c.key_bytes])
        if r.op == "gcm_encrypt":
            assert (out, tag) == clib.gcm_encrypt(rk, r.iv, r.aad, r.data, r.tag)
        elif r.op == "ccm_encrypt":
            assert (out, tag) == clib.ccm_encrypt(rk, r.iv, r.aad, r.data, r.tag)
        elif r.op == "xts_encrypt":
            assert out == clib.xts_encrypt(r.key, r.iv, r.data)
        elif r.op == "cmac":
            assert tag == clib.cmac(rk, r.data, r.tag)


@pytest.mark.parametrize(
    "cpu,env,want",
    [
        ("max", None, (0, "pmull")),
        ("max", {"CIPHERSPEC_NEON_NO_PMULL": "1"}, (0, "portable")),
        ("max", {"CIPHERSPEC_NEON_NO_CRYPTO": "1"}, (-1, "portable")),
        ("cortex-a76", None, (1, "pmull")),  # FEAT_AES and FEAT_PMULL, no FEAT_SHA3
    ],
)
def test_hwcap_dispatch_per_key(cpu, env, want):
    """The key's variants come from getauxval(AT_HWCAP), less the override variables; sha3 on a CPU
    without FEAT_SHA3 and an unknown feature are refused (CIPHERSPEC_ERR_ISA)."""
    c, ref = libs("aes128")
    c.qemu_cpu, c.qemu_env = cpu, env
    try:
        key = bytes(16)
        assert c.modes_info(key) == (c.variants[want[0]].schedule.name, want[1])
        cases = [case for case in cases_of("aes128") if case[0].op.startswith("gcm")][:12]
        _check(c, cases, (None,))
        if cpu == "cortex-a76":
            refused = c.run_modes(
                [ModeRequest("info", key, isa=i) for i in ("sha3", "crypto+bogus", "neon+crypto+pmull")]
            )
            assert [s for s, _, _ in refused] == [ERR_ISA, ERR_ISA, 0]
    finally:
        c.qemu_cpu, c.qemu_env = "max", None


def test_cmac_on_a_64_bit_block():
    c, ref = libs("pipo64_128")
    assert "gcm" not in c.files["pipo64_128_neon_modes.h"]  # CMAC only on a 64-bit block
    _check(c, _cases(c, ref, random.Random(64)), (None, "neon"))
    rk = c.expand_key(bytes(range(16)))
    assert c.cmac(rk, b"abc") == aead.cmac(ref, ref.expand_key(bytes(range(16))), b"abc")


def test_oracle_interface_and_pmull_in_the_library():
    """cipherspec.aead.call reaches the library's own methods; the harness holds PMULL and PMULL2."""
    c, ref = libs("aes128")
    key, iv = bytes(range(16)), bytes(12)
    rk, rr = c.expand_key(key), ref.expand_key(key)
    ct, tag = aead.call(c, "gcm_encrypt", rk, iv, b"a", b"hello")
    assert (ct, tag) == aead.gcm_encrypt(ref, rr, iv, b"a", b"hello")
    assert aead.call(c, "gcm_decrypt", rk, iv, b"a", ct, tag) == b"hello"
    with pytest.raises(AuthenticationError):
        c.gcm_decrypt(rk, iv, b"b", ct, tag)
    require("aarch64-linux-gnu-objdump")
    dis = subprocess.run(["aarch64-linux-gnu-objdump", "-d", str(c.exe)], capture_output=True, text=True).stdout
    assert "\tpmull\t" in dis and "\tpmull2\t" in dis


def test_refusals_write_nothing():
    """The library's own checks (reached with the Python ones bypassed): a bad length or parameter is
    CIPHERSPEC_ERR_PARAM / _KEY_LENGTH and the output buffer keeps the harness's 0xA5 fill; the methods
    raise the oracle's UsageError before QEMU runs."""
    c, _ = libs("aes128")
    k = bytes(range(16))
    bad = [
        (ModeRequest("gcm_encrypt", k, bytes(12), b"", bytes(20), 5), ERR_PARAM),  # tag length
        (ModeRequest("gcm_encrypt", k, b"", b"", bytes(20), 16), ERR_PARAM),  # empty IV
        (ModeRequest("ccm_encrypt", k, bytes(6), b"", bytes(20), 16), ERR_PARAM),  # nonce length
        (ModeRequest("ccm_encrypt", k, bytes(13), b"", bytes(70000), 16), ERR_PARAM),  # over 2^16 - 1 bytes
        (ModeRequest("xts_encrypt", k + k, bytes(16), b"", bytes(20)), ERR_PARAM),  # equal halves
        (ModeRequest("xts_encrypt", k + bytes(16), bytes(16), b"", bytes(15)), ERR_PARAM),  # under a block
        (ModeRequest("gcm_encrypt", k[:15], bytes(12), b"", bytes(20), 16), ERR_KEY_LENGTH),
        (ModeRequest("cmac", k, data=b"abc", tag=17), ERR_PARAM),
    ]
    got = c.run_modes([r for r, _ in bad])
    for (r, want), (status, out, tag) in zip(bad, got):
        assert status == want, r.op
        assert set(out + tag) <= {0xA5}, f"{r.op} wrote output on a refusal"
    rk = c.expand_key(k)
    with pytest.raises(UsageError, match="GCM: a tag is 16, 15, 14, 13, 12, 8 or 4 bytes, got 5"):
        c.gcm_encrypt(rk, bytes(12), b"", b"x", 5)
    with pytest.raises(UsageError, match="CCM: the nonce is 7 to 13 bytes, got 6"):
        c.ccm_encrypt(rk, bytes(6), b"", b"x")
    with pytest.raises(UsageError, match="XTS: the two key halves are equal"):
        c.xts_encrypt(k + k, bytes(16), bytes(32))
