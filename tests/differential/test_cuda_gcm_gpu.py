"""CUDA GCM on a real GPU against the C library's GCM, byte for byte (tests/support/gcm_checks.py): one long
message (device-pointer and host-buffer entries; lengths up to 64 MiB, so hundreds of slices are joined;
IVs of 12 and other lengths; truncated tags), a batch of TLS-sized records under several keys in one launch,
tampered ciphertext, AAD, IV and tags -> authentication failure with the output zeroed, error codes.
AES-128 and ARIA-128 (the bitsliced constant-time defaults: 32 blocks per thread), LEA-128 (one block per
thread, CTR hoisting), and two other placements (round keys in shared memory; AES T-tables in shared memory,
whose fills the batch and finish kernels repeat).  Skipped without a GPU (CI); run on the device by
bench/gpu/gcm.sh."""

from __future__ import annotations

import numpy as np
import pytest
from gcm_checks import check_batch, check_errors, check_long
from gcm_iv import wrapping_iv

from generator.c import BACKEND as C_BACKEND
from generator.ptx import BACKEND as CUDA_BACKEND

pytestmark = pytest.mark.gpu  # skips without a GPU (tests/support/tools.py: require_gpu)

SCHEDULES = [("aes128", None), ("aria128", None), ("lea128", None), ("lea128", "rk-shared_t128"), ("aes128", "tt_t256")]
IDS = [f"{n}-{s or 'default'}" for n, s in SCHEDULES]
LONG = [0, 1, 15, 16, 17, 511, 4096, 65536 + 3, 1 << 20, (16 << 20) + 7, 64 << 20]
BATCH = [0, 1, 13, 16, 17, 255, 16384, 16384 + 13, 16384 + 16, 100000, 16384, 3000] * 3
_CACHE: dict = {}


def libs(registry, name, sched):
    if (name, sched) not in _CACHE:
        _CACHE[(name, sched)] = (
            CUDA_BACKEND.load(registry, name, None, sched),
            C_BACKEND.load(registry, name, None, None),
        )
    return _CACHE[(name, sched)]


@pytest.mark.parametrize("name,sched", SCHEDULES, ids=IDS)
def test_gcm_long_message(registry, name, sched):
    g, c = libs(registry, name, sched)
    check_long(g, c, np.random.default_rng(31), LONG)


@pytest.mark.parametrize("name,sched", SCHEDULES, ids=IDS)
def test_gcm_batch(registry, name, sched):
    g, c = libs(registry, name, sched)
    check_batch(g, c, np.random.default_rng(32), BATCH, nkeys=5)


def test_gcm_errors(registry):
    g, _ = libs(registry, "lea128", None)
    check_errors(g)


# 16384 blocks and up take the tensor-core GHASH (templates/tgh.cu.j2); the wrap of inc32 splits its CTR pass in two
@pytest.mark.parametrize("nbytes", [40 * 16 + 7, (16384 << 4) + 5, (1 << 22) + 16])
@pytest.mark.parametrize("low", [0xFFFFFF00, 0xFFFFFFFF])
@pytest.mark.parametrize("name", ["lea128", "aes128"])  # AES: the bitsliced core with host-computed planes (bs_ctr.py)
def test_gcm_inc32_wraps_mid_message(registry, name, nbytes, low):
    """J0's low 32 bits wrap to 0 inside the message (a 16-byte IV solved for J0): the high 96 bits stay."""
    g, c = libs(registry, name, None)
    rng = np.random.default_rng(low ^ nbytes)
    key = rng.integers(0, 256, g.key_bytes, dtype=np.uint8).tobytes()
    rk = c.expand_key(key)
    h = int.from_bytes(c.encrypt_blocks(rk, bytes(16)).tobytes(), "big")
    iv = wrapping_iv(h, rng.integers(0, 256, 12, dtype=np.uint8).tobytes(), low)
    data, aad = rng.integers(0, 256, nbytes, dtype=np.uint8).tobytes(), b"aad"
    want = c.gcm_encrypt(rk, iv, aad, data, 16)
    k = g.gcm_key(key)
    assert g.gcm_encrypt(k, iv, aad, data, 16) == want
    assert g.gcm_decrypt(k, iv, aad, want[0], want[1]) == data


# A batch of records up to 1 MiB hashes on the tensor cores (templates/tgb.cu.j2: one warp a record, each distinct
# key's matrices once); lengths around the chunk (4 blocks) and tile (64 blocks) edges, partial blocks, empty
# records with AAD only, keys shared by records far apart, many records (the key set's table grows past its
# first size)
TILES = [0, 1, 15, 16, 17, 63, 64, 65, 1023, 1024, 1025, 1040, 2047, 16384, 16384 + 1, 16384 + 15, 16400, 65536 + 9]


@pytest.mark.parametrize("name,sched", [("aes128", None), ("lea128", None)], ids=["aes128", "lea128"])
def test_gcm_batch_tensor_cores_mixed(registry, name, sched):
    g, c = libs(registry, name, sched)
    rng = np.random.default_rng(33)
    lengths = TILES * 4 + [int(x) for x in rng.integers(0, 20000, 60)]
    check_batch(g, c, rng, lengths, nkeys=11)


def test_gcm_batch_tensor_cores_one_key(registry):
    g, c = libs(registry, "aes128", None)
    check_batch(g, c, np.random.default_rng(34), [16384] * 40 + [16384 + 13, 0, 5], nkeys=1)


LONG_RECORDS = {
    "over-1MiB": [(1 << 20) + 17, 16384, 0, 33],  # over CS_TGB_MAX_BYTES: the fused kernel
    "long-for-its-batch": [300 << 10, 16384, 0, 33],  # 256 KiB and up, little else: the fused kernel
    "long-in-a-big-batch": [(300 << 10) + 5] + [16384] * 1300,  # the tensor cores
}


@pytest.mark.parametrize("lengths", list(LONG_RECORDS.values()), ids=list(LONG_RECORDS))
def test_gcm_batch_long_records(registry, lengths):
    """Records of 256 KiB and more: either route, equal to the C library."""
    g, c = libs(registry, "aes128", None)
    check_batch(g, c, np.random.default_rng(35 + len(lengths)), lengths, nkeys=2)


@pytest.mark.parametrize("nrec,nkeys,size", [(40, 20, 100), (320, 300, 3000)], ids=["20-keys", "300-keys"])
def test_gcm_batch_many_keys(registry, nrec, nkeys, size):
    """Each distinct key gets its matrices, up to CS_TGB_MAX_KEYS (256) of them; a record whose key came later is
    hashed with the field multiply (cs_tgb_field) in the same launch; equal to the C library either way."""
    g, c = libs(registry, "aes128", None)
    rng = np.random.default_rng(36 + nrec)
    check_batch(g, c, rng, [int(x) for x in rng.integers(0, size, nrec)], nkeys=nkeys)


# The tensor-core batch's keystream kernel (P_gcm_keystream) is a resident grid: with more slices than the GPU
# holds CTAs (short records, thousands of them) each CTA takes several in turn, copying a slice's round keys
# ahead into its other buffer when the key changes and keeping them when it does not.  Keys in every pattern,
# and a key table that is not 16-byte aligned (4-byte copies).
KEY_PATTERNS = {
    "one-key": (1, lambda i: 0, 0),
    "alternating": (2, lambda i: i % 2, 0),
    "runs": (3, lambda i: (i // 5) % 3, 0),
    "period-7": (7, lambda i: i % 7, 0),
    "period-7-unaligned-table": (7, lambda i: i % 7, 4),
}


@pytest.mark.parametrize("pattern", list(KEY_PATTERNS), ids=list(KEY_PATTERNS))
def test_gcm_batch_keystream_key_patterns(registry, pattern):
    g, c = libs(registry, "aes128", None)
    nkeys, key_of, shift = KEY_PATTERNS[pattern]
    rng = np.random.default_rng(37 + nkeys + shift)
    lengths = [int(x) for x in rng.integers(0, 600, 3000)]
    check_batch(g, c, rng, lengths, nkeys=nkeys, key_of=key_of, key_shift=shift)


@pytest.mark.parametrize("name", ["aes128", "aria128"])
def test_gcm_batch_former_kernels(registry, name, monkeypatch):
    """The A/B baseline (CIPHERSPEC_GCM_AB=v1, read at every call): the finish with one core call a message, still
    equal to the C library (the lane-key finish, the default: every other batch test)."""
    g, c = libs(registry, name, None)
    monkeypatch.setenv("CIPHERSPEC_GCM_AB", "v1")
    rng = np.random.default_rng(38)
    check_batch(g, c, rng, TILES + [int(x) for x in rng.integers(0, 20000, 40)], nkeys=11)


# The records' hashing kernel under the A/B switch (CIPHERSPEC_GCM_AB=t0, read at every call): the former one, one
# packing chain (the default, two chains and whole-tile copies, is every other batch test); more than 256 keys
# too (the later ones hashed by the field multiply).
def test_gcm_batch_former_records_kernel(registry, monkeypatch):
    g, c = libs(registry, "aes128", None)
    monkeypatch.setenv("CIPHERSPEC_GCM_AB", "t0")
    rng = np.random.default_rng(39)
    check_batch(g, c, rng, TILES + [int(x) for x in rng.integers(0, 20000, 40)], nkeys=11)
    check_batch(g, c, rng, [int(x) for x in rng.integers(0, 3000, 320)], nkeys=300)


# Up to 16 keys and records up to 64 KiB (a bitsliced layout whose CTR kernel runs free: AES-128): the records listed
# by key on the device, then one launch for every key, the records in memory order, a record's 1,024-block chunk a
# warp trip through the CTR kernel's core under its key's round keys (the warp's copy in shared memory, refreshed
# when its key changes), with the record's planes made on the device
# (P_gcm_seg_planes, P_gcm_ks_seg), and the records' E(K, J0) in the same launch (the finish takes them:
# P_gcm_finish_ej).  Where the CTR kernel runs in step (ARIA-128) the resident kernel and the finish's own E(K, J0).
# CIPHERSPEC_GCM_AB=c0: a launch a key, its round keys copied into constant memory first (the former launches); g1:
# one launch, the round keys read from the key table; l1: one launch, the records key by key (the default: in memory
# order); k1: the keyed route where the CTR kernel runs in step
# (ARIA-128: P_gcm_ks_key); q0 the resident kernel everywhere; e0 the finish's own E(K, J0).  Keys that repeat (16 over
# 64 records, records of one key far apart) and keys that do not (a key a record); lengths around a warp's 1,024
# blocks and a lane's 32, partial blocks, empty records, AAD 0..29 bytes, tags 16/12/8, host and device
# descriptions, decryption with one tampered tag (its output zeroed).
KEYED = [0, 1, 15, 16, 17, 511, 512, 513, 16383, 16384, 16385, 3 * 16384 + 7, 65536, 65535]


@pytest.mark.parametrize(
    "arm",
    ["", "c0", "l1", "g1", "k1", "q0", "e0"],
    ids=["keyed", "keyed-c0", "keyed-l1", "keyed-g1", "keyed-k1", "resident", "finish-e0"],
)
@pytest.mark.parametrize("name", ["aes128", "aria128"])
def test_gcm_batch_keyed_keystream(registry, name, arm, monkeypatch):
    g, c = libs(registry, name, None)
    monkeypatch.setenv("CIPHERSPEC_GCM_AB", arm)
    rng = np.random.default_rng(40 + len(arm))
    check_batch(g, c, rng, KEYED * 3 + [int(x) for x in rng.integers(0, 65536, 22)], nkeys=16)
    check_batch(g, c, rng, KEYED[:12], nkeys=12)  # a key a record


# A long message's A/B baselines (the default is every other long test): s0 stages its key, descriptor and AAD by a
# copy and a host wait (the default: kernel parameters), f0 hashes its first level with the former kernel (one
# packing chain, every tile's copies with size arithmetic), e0 makes E(K, J0) in the finish kernel (the default:
# one block of the library's CTR kernel), o0 the staging before the CTR pass when encrypting (the former order; the default stages after it), p0 the whole key staged
# (the default: its powers of H alone, where E(K, J0) comes from the CTR kernel)
@pytest.mark.parametrize("arm", ["s0", "f0", "e0", "o0", "p0"])
def test_gcm_long_ab_arms(registry, arm, monkeypatch):
    g, c = libs(registry, "aes128", None)
    monkeypatch.setenv("CIPHERSPEC_GCM_AB", arm)
    check_long(g, c, np.random.default_rng(42), [(16384 << 4) + 5, 1 << 20, (4 << 20) + 17])
