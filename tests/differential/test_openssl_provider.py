"""The OpenSSL 3 provider (--target openssl-provider) in real OpenSSL, no mocks, against the interpreter.

- the build: layout, one exported symbol, `openssl list` shows every algorithm with our property;
- `openssl enc` with and without -nopad, files of many lengths: equal to the interpreter (with PKCS#7
  done in Python) and to OpenSSL's own ARIA/AES byte for byte, and decrypting back;
- the EVP program (tests/data/evp_stream.c): random chunk sizes 1..4097 against one-shot output, both
  directions, in place, dupctx, re-init, the context's parameters, refused calls on the error queue,
  key zeroization on free; its whole transcript equals the one OpenSSL's own ARIA/AES produce;
- every mode through EVP in-process (runtime/openssl_target) at lane boundaries and counter wraps;
- the same program and provider under ASan + UBSan;
- every shipped cipher at once (built at -O0 to keep CI short): names, KAT vectors through EVP.
"""

from __future__ import annotations

import filecmp
import subprocess

import numpy as np
import pytest
from c_support import block_counts, check_modes, random_bytes
from openssl_support import (
    PROVIDER_DIR,
    evp_program,
    openssl_enc,
    pkcs7,
    provider_args,
    require_openssl,
    run_evp,
)
from paths import BLOCK_VECTOR_FILES, TOY_SPEC

from cipherspec import modes
from driver import cli

CIPHERS = ["aria128", "aes128", "lea128", "hight"]  # OpenSSL's own ARIA and AES; 128- and 64-bit blocks
OPENSSL_HAS = {"aria128": "ARIA-128", "aes128": "AES-128"}
NAMES = {"aria128": "ARIA-128", "aes128": "AES-128", "lea128": "LEA-128", "hight": "HIGHT"}
MODES = ("ECB", "CBC", "CTR")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    require_openssl()
    out = tmp_path_factory.mktemp("ossl") / "out"
    assert cli.run(["build", *CIPHERS, "--target", "openssl-provider", "-o", str(out)]) == 0
    return out


def test_build_layout_and_exports(built):
    so = built / PROVIDER_DIR / "cipherspec.so"
    for rel in ("openssl.cnf", "src/cipherspec_provider.c", "src/lea128.c", "include/lea128.h"):
        assert (built / rel).is_file(), rel
    syms = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True, text=True, check=True).stdout
    assert [line.split()[-1] for line in syms.splitlines()] == ["OSSL_provider_init"]
    needed = subprocess.run(["readelf", "-d", str(so)], capture_output=True, text=True, check=True).stdout
    libs = sorted(line.split("[")[1].rstrip("]") for line in needed.splitlines() if "(NEEDED)" in line)
    assert libs == ["libc.so.6", "libcrypto.so.3"]


def listed(out) -> list[str]:
    """Our algorithms in `openssl list -cipher-algorithms`, upper-cased: OpenSSL prints every name and OID
    it knows for an algorithm, as "{ 1.2.410.200046.1.1.5, ARIA-128-CTR } @ cipherspec" or, for a name it
    has legacy aliases of, "{ 2.16.840.1.101.3.4.1.6, aes-128-gcm, id-aes128-GCM } @ cipherspec": ours is
    the alias in our naming rule (no "id-" prefix), whatever case OpenSSL prints it in."""
    p = subprocess.run(
        ["openssl", "list", "-cipher-algorithms", *provider_args(out, None)[:4]],
        capture_output=True,
        text=True,
        check=True,
    )
    names = []
    for line in p.stdout.splitlines():
        if line.endswith("@ cipherspec"):
            aliases = line.rsplit("@", 1)[0].strip().strip("{} ").split(", ")
            names.append([a.upper() for a in aliases if not a[0].isdigit() and not a.startswith("id-")][-1])
    return sorted(names)


def expected_names(module) -> list[str]:
    from generator.openssl.names import algorithm_name, modes_of

    return [algorithm_name(module, m) for m in modes_of(module)]


def test_openssl_list(built, registry):
    """ECB, CBC, CTR for every cipher; GCM, CCM, XTS for the 128-bit blocks (not HIGHT's 64)."""
    want = sorted(n for c in CIPHERS for n in expected_names(registry.module(c)))
    assert listed(built) == want
    assert "LEA-128-GCM" in want and "HIGHT-GCM" not in want


def test_openssl_cnf_loads_the_provider(built, tmp_path):
    import os

    env = dict(os.environ, OPENSSL_CONF=str(built / "openssl.cnf"), OPENSSL_MODULES=str(built / PROVIDER_DIR))
    p = subprocess.run(["openssl", "list", "-providers"], capture_output=True, text=True, env=env, check=True)
    assert "cipherspec" in p.stdout and "default" in p.stdout
    src, dst = tmp_path / "in", tmp_path / "out"
    src.write_bytes(bytes(range(100)))
    p = subprocess.run(
        ["openssl", "enc", "-lea-128-ctr", "-K", "00" * 16, "-iv", "00" * 16, "-in", str(src), "-out", str(dst)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    assert dst.stat().st_size == 100


def _lengths(block: int) -> list[int]:
    return sorted({0, 1, block - 1, block, 3 * block + 5, 8192 + 7})


@pytest.mark.parametrize("name", CIPHERS)
def test_openssl_enc_matches_the_interpreter(built, make_ref, tmp_path, name):
    ref = make_ref(name)
    B, K = ref.block_bytes, ref.key_bytes
    rng = np.random.default_rng(len(name))
    key, iv = random_bytes(rng, K), random_bytes(rng, B)
    rk = ref.expand_key(key)
    for n in _lengths(B):
        data = random_bytes(rng, n)
        src = tmp_path / f"p{n}"
        src.write_bytes(data)
        for mode in MODES:
            for nopad in (False, True):
                if nopad and mode != "CTR" and n % B:
                    continue
                padded = data if nopad or mode == "CTR" else pkcs7(data, B)
                alg = f"{NAMES[name]}-{mode}"
                enc, dec = tmp_path / "c", tmp_path / "d"
                p = openssl_enc(built, alg, key, None if mode == "ECB" else iv, src, enc, nopad=nopad)
                assert p.returncode == 0, p.stderr
                got = enc.read_bytes()
                if mode == "CBC":  # through the interpreter's parallel CBC decryption (a bijection)
                    assert len(got) == len(padded) and modes.cbc_decrypt(ref, rk, iv, got) == padded, (alg, n)
                else:
                    want = modes.ecb_encrypt(ref, rk, padded) if mode == "ECB" else modes.ctr(ref, rk, iv, data)[0]
                    assert got == want, (alg, n, nopad)
                p = openssl_enc(built, alg, key, None if mode == "ECB" else iv, enc, dec, decrypt=True, nopad=nopad)
                assert p.returncode == 0, p.stderr
                assert filecmp.cmp(src, dec, shallow=False), (alg, n, nopad)


@pytest.mark.parametrize("name", sorted(OPENSSL_HAS))
def test_openssl_enc_matches_openssls_own(built, tmp_path, name):
    rng = np.random.default_rng(7)
    key, iv = random_bytes(rng, 16), random_bytes(rng, 16)
    data = random_bytes(rng, 5000 + 3)
    for mode in MODES:
        for nopad in (False, True):
            src = tmp_path / "p"
            src.write_bytes(data[:4992] if nopad and mode != "CTR" else data)
            alg = f"{OPENSSL_HAS[name]}-{mode}"
            outs = []
            for propq in ("provider=cipherspec", "provider=default"):
                dst = tmp_path / propq.split("=")[1]
                p = openssl_enc(built, alg, key, None if mode == "ECB" else iv, src, dst, nopad=nopad, propq=propq)
                assert p.returncode == 0, p.stderr
                outs.append(dst.read_bytes())
            assert outs[0] == outs[1] and len(outs[0]) >= 4992, (alg, nopad)


def test_openssl_speed_runs_through_the_provider(built):
    """`openssl speed -evp LEA-128-CTR` with the provider options (they must come before -evp)."""
    p = subprocess.run(
        [
            "openssl",
            "speed",
            *provider_args(built, None),
            "-seconds",
            "1",
            "-bytes",
            "16384",
            "-mr",
            "-evp",
            "LEA-128-CTR",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    rate = [line for line in p.stdout.splitlines() if line.startswith("+F:")]
    assert len(rate) == 1 and rate[0].split(":")[2] == "LEA-128-CTR" and float(rate[0].split(":")[3]) > 0


def check_against_oracle(ref, mode: str, key: bytes, iv: bytes, data: bytes, lines: list[str]) -> None:
    """The program's one-shot encryptions (with and without padding) and its context after 37 bytes,
    against the interpreter.  CBC encryption is checked through the interpreter's (parallel) CBC
    decryption: a bijection that inverts the reference encryption, so dec(out) == in proves out."""
    rk, B = ref.expand_key(key), ref.block_bytes
    padded, whole = pkcs7(data, B), data[: len(data) - len(data) % B]
    enc_pad, enc_nopad = bytes.fromhex(_field(lines, "enc-pad")), bytes.fromhex(_field(lines, "enc-nopad"))
    after = _field(lines, "ctx-after-37").split()
    if mode == "CTR":
        assert enc_pad == enc_nopad == modes.ctr(ref, rk, iv, data)[0]
        assert f"num={37 % B}" in after and f"updated-iv={modes.ctr_next_iv(iv, -(-37 // B)).hex()}" in after
    elif mode == "ECB":
        assert enc_pad == modes.ecb_encrypt(ref, rk, padded) and enc_nopad == modes.ecb_encrypt(ref, rk, whole)
        assert "num=0" in after and "updated-iv=" in after
    else:
        assert len(enc_pad) == len(padded) and modes.cbc_decrypt(ref, rk, iv, enc_pad) == padded
        assert enc_nopad == enc_pad[: len(whole)]
        done = 37 - 37 % B  # the whole blocks of the first 37 bytes: the last one is the chaining value
        assert "num=0" in after and f"updated-iv={enc_pad[done - B : done].hex()}" in after


def _field(lines: list[str], tag: str) -> str:
    found = [line[len(tag) + 1 :] for line in lines if line.startswith(tag + " ")]
    assert len(found) == 1, (tag, lines)
    return found[0]


@pytest.mark.parametrize("name", CIPHERS)
@pytest.mark.parametrize("mode", MODES)
def test_evp_streaming_program(built, make_ref, name, mode):
    """Random chunks vs one-shot (inside the program), the oracle's bytes, params, errors, zeroization;
    for ARIA/AES the whole transcript (bar our extra strict checks) equals OpenSSL's own cipher's."""
    ref = make_ref(name)
    B = ref.block_bytes
    rng = np.random.default_rng(B + len(mode))
    key, iv = random_bytes(rng, ref.key_bytes), random_bytes(rng, B)
    data = random_bytes(rng, 3 * 4097 + 5)
    exe = evp_program(built, name)
    alg = f"{NAMES[name]}-{mode}"
    lines = run_evp(exe, built, alg, "provider=cipherspec", key, b"" if mode == "ECB" else iv, 11, data)
    check_against_oracle(ref, mode, key, iv, data, lines)
    for tag in ("streaming ok", "dupctx ok", "strict zeroized yes", "done"):
        assert tag in lines, (tag, lines)
    errors = {line.split(":")[0][4:]: line.split(": ", 1)[1] for line in lines if line.startswith("err ")}
    want_errors = {
        "update-without-key": "no key set",
        "set-key-length": "invalid key length",
        "strict ivlen": "invalid iv length",
        "strict keylen": "invalid key length",
        "strict num-too-big": "failed to set parameter",
    }
    if mode != "CTR":
        want_errors.update(
            {
                "bad-padding": "bad decrypt",
                "nopad-partial-final": "wrong final block length",
                "decrypt-partial-final": "wrong final block length",
                "strict evp-cipher-partial": "invalid input length",
            }
        )
    assert errors == want_errors
    if name in OPENSSL_HAS:
        theirs = run_evp(
            evp_program(built, None), built, alg, "provider=default", key, b"" if mode == "ECB" else iv, 11, data
        )
        common = [line for line in lines if not line.startswith(("strict", "err strict", "provider"))]
        assert common == [line for line in theirs if not line.startswith("provider")]
        assert "provider cipherspec" in lines and "provider default" in theirs


@pytest.mark.parametrize("name", CIPHERS)
def test_every_mode_through_evp(make_ref, registry, name):
    """The in-process EVP loader against the interpreter: lengths at the C kernels' lane boundaries,
    counters that wrap at 2^64 and at the top of the block."""
    from driver.targets import make_cipher
    from generator.c.schedules import lanes, resolve

    require_openssl()
    c = make_cipher(registry, name, target="openssl-provider")
    ref = make_ref(name)
    B = c.block_bytes
    n = lanes(registry.module(name), resolve(registry.module(name), None))
    rng = np.random.default_rng(B * 3)
    key = random_bytes(rng, c.key_bytes)
    top = (1 << (8 * B)) - 1
    ivs = [random_bytes(rng, B), (top - 2).to_bytes(B, "big")]
    if B == 16:
        ivs.append(((1 << 64) - 2).to_bytes(B, "big"))
    for blocks in block_counts(n):
        for iv in ivs:
            check_modes(c, ref, key, iv, random_bytes(rng, blocks * B + 3))


def test_bad_key_and_iv_lengths_through_evp(registry):
    """The loader's own checks; the provider's refusals are in the EVP program's transcript."""
    from cipherspec.errors import UsageError
    from driver.targets import make_cipher

    require_openssl()
    c = make_cipher(registry, "hight", target="openssl-provider")
    with pytest.raises(UsageError, match="16-byte key"):
        c.expand_key(bytes(15))
    with pytest.raises(UsageError, match="8-byte IV"):
        c.run_mode(bytes(16), "cbc", "encrypt", bytes(16), bytes(16))
    with pytest.raises(UsageError, match="not a multiple"):
        c.run_mode(bytes(16), "ecb", "encrypt", bytes(9))


def test_user_spec_cipher_gets_a_provider(tmp_path, make_ref):
    """A researcher's own spec (tests/data/toy.cs, family toy, variant toy4) -> TOY-4-CTR, equal to the oracle."""
    require_openssl()
    out = tmp_path / "out"
    assert cli.run(["build", "toy4", "--spec", str(TOY_SPEC), "--target", "openssl-provider", "-o", str(out)]) == 0
    assert listed(out) == ["TOY-4-CBC", "TOY-4-CTR", "TOY-4-ECB"]
    from cipherspec.registry import Registry
    from driver.targets import make_cipher

    reg = Registry([TOY_SPEC])
    ref = make_cipher(reg, "toy4")
    data = bytes(range(50))
    src, dst = tmp_path / "p", tmp_path / "c"
    src.write_bytes(data)
    key, iv = bytes(range(ref.key_bytes)), bytes(ref.block_bytes)
    assert openssl_enc(out, "TOY-4-CTR", key, iv, src, dst).returncode == 0
    assert dst.read_bytes() == modes.ctr(ref, ref.expand_key(key), iv, data)[0]


SAN = ("-O0", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=all")


@pytest.mark.parametrize("name", ["lea128", "hight"])
def test_evp_program_under_asan_ubsan(tmp_path_factory, make_ref, registry, name):
    """The provider and the EVP program both built with -fsanitize=address,undefined: streaming, in
    place, dupctx, re-init, refused calls and zeroization for every mode, and the oracle's bytes."""
    import os

    from generator.openssl import build as pbuild
    from toolchain.cc import Toolchain

    require_openssl()
    tc = Toolchain(cc=os.environ.get("CC", "cc"), flags=("-std=c99", "-fPIC", *SAN))
    entries = pbuild.provider_entries(registry, [name], None)
    files = pbuild.library_files(entries)[0]
    so = pbuild.build_provider(entries, tc, [files])
    out = tmp_path_factory.mktemp("asan")
    (out / PROVIDER_DIR).mkdir(parents=True)
    (out / PROVIDER_DIR / "cipherspec.so").symlink_to(so)
    for rel, text in files.items():  # the library's every source (ISA variants and dispatcher included)
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    exe = evp_program(out, name, SAN)
    ref = make_ref(name)
    rng = np.random.default_rng(99)
    key, iv = random_bytes(rng, ref.key_bytes), random_bytes(rng, ref.block_bytes)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="print_stacktrace=1")
    for mode in MODES:
        for n in (37, 3 * 4097 + 5):
            data = random_bytes(rng, n)
            lines = run_evp(
                exe,
                out,
                f"{NAMES[name]}-{mode}",
                "provider=cipherspec",
                key,
                b"" if mode == "ECB" else iv,
                n,
                data,
                env,
            )
            check_against_oracle(ref, mode, key, iv, data, lines)
            assert "strict zeroized yes" in lines and "done" in lines


def test_all_shipped_ciphers_in_one_provider(tmp_path, registry, make_ref, vectors, monkeypatch):
    """`--all` (compiled at -O0 to keep CI short): every algorithm listed, and every shipped cipher
    through that one module: its KAT vectors (ECB) and a CTR stream against the interpreter."""
    from cipherspec.kat import (
        FileReport,
        parse_kat_file,
        run_block_cases,
        validate_block,
    )
    from generator.openssl.names import algorithm_name, modes_of
    from runtime.openssl_target import OsslCipher

    require_openssl()
    monkeypatch.setenv("CIPHERSPEC_LIB_CFLAGS", "-std=c99 -O0 -fPIC")
    out = tmp_path / "all"
    assert cli.run(["build", "--all", "--target", "openssl-provider", "-o", str(out)]) == 0
    names = listed(out)
    assert names == sorted(n for c in registry.names() for n in expected_names(registry.module(c)))
    so = out / PROVIDER_DIR / "cipherspec.so"

    def make(name, rounds):
        module = registry.module(name)
        return OsslCipher(module, None, so, {m: algorithm_name(module, m) for m in modes_of(module)})

    report, ran = FileReport("shipped vectors"), 0
    for f in BLOCK_VECTOR_FILES:  # the provider holds the default round counts: other counts are skipped
        cases = [validate_block(b, set(registry.names())) for b in parse_kat_file(vectors / f) if not b.is_drbg]
        cases = [k for k in cases if k.rounds is None]
        run_block_cases(cases, make, report)
        ran += len(cases)
    assert report.failed == 0 and report.passed == ran > 0, report.failures
    rng = np.random.default_rng(5)
    for name in registry.names():
        c, ref = make(name, None), make_ref(name)
        key, iv = random_bytes(rng, c.key_bytes), random_bytes(rng, c.block_bytes)
        data = random_bytes(rng, 40 * c.block_bytes + 3)
        assert c.run_mode(key, "ctr", "encrypt", data, iv) == modes.ctr(ref, ref.expand_key(key), iv, data)[0], name
