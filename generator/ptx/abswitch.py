"""The A/B switch of the bitsliced lowering, for same-run comparisons on the device (bench/gpu/bs_roof.sh,
session.sh): CIPHERSPEC_PTX_BS=v1 builds the bitsliced cores as the lowering did before these steps -- the
depth-16 S-box circuit only (bitsliced.py), round loops cut as tagged and no XOR unsharing (lanes.py, xor3.py),
the pressure order without the linear layer's slices (isel.py, slices.py).  Unset: the current lowering.

    CIPHERSPEC_PTX_BS=v1 python3 bench/gpu/bench.py ...   (into its own CIPHERSPEC_CACHE: same names, other sources)
"""

from __future__ import annotations

import os


def former_bitsliced() -> bool:
    """Whether the build asks for the former bitsliced lowering (the A/B baseline)."""
    return os.environ.get("CIPHERSPEC_PTX_BS") == "v1"


def former_sbox() -> bool:
    """CIPHERSPEC_PTX_SBOX=v1: the S-box circuits as before the inversion-decomposition search (sbox_choice.py)
    -- Paar's networks only, two_sided's own decomposition, the circuit and form with the fewest plane
    operations (merged or both own programs) -- the A/B baseline of bench/gpu/affinv.sh."""
    return os.environ.get("CIPHERSPEC_PTX_SBOX") == "v1"


def former_ctr() -> bool:
    """CIPHERSPEC_PTX_CTR=v1: the bitsliced CTR kernels without the host-computed segment planes (bs_ctr.py): they
    call the plain encrypt core, as before -- the A/B baseline of bench/gpu/ctrcache.sh."""
    return os.environ.get("CIPHERSPEC_PTX_CTR") == "v1"


def former_store() -> bool:
    """CIPHERSPEC_PTX_STORE=v1: the bitsliced CTR kernel's former block order -- a thread's 32 consecutive blocks, so
    that the warp's 16-byte stores land 512 bytes apart (32 lines an instruction) -- instead of lane L holding
    blocks L, 32 + L, ... of the warp's chunk (each store instruction writes 32 consecutive blocks): the A/B
    baseline of bench/gpu/ariaroof.sh."""
    return os.environ.get("CIPHERSPEC_PTX_STORE") == "v1"


def mk_timeline() -> bool:
    """CIPHERSPEC_PTX_MK_TIMELINE=1: a bench-only build whose multi-key keystream kernels write, per CTA, %globaltimer
    and clock64 stamps (start, first request staged, first loop trip, end) into a device table, and whose context
    keeps host CLOCK_REALTIME stamps of the call (P_mg_timeline reads both): bench/gpu/drbg_multi.py --timeline.
    Unset: no stamps, the sources as before."""
    return os.environ.get("CIPHERSPEC_PTX_MK_TIMELINE") == "1"


def former_rounds() -> bool:
    """CIPHERSPEC_PTX_ROUNDS=v1: round loops found with each op's arguments in the IR's order, as before commutative
    ops were compared by kind (roundloop._commuted), so that rounds differing only in that order stay unrolled
    -- the A/B baseline of bench/gpu/nearinv.sh."""
    return os.environ.get("CIPHERSPEC_PTX_ROUNDS") == "v1"


def former_derive() -> bool:
    """CIPHERSPEC_PTX_DERIVE=v1: set_key's derived words printed straight, one copy of the ops a row, as before
    deriveloop.py -- the A/B baseline of the device key schedules (bench/gpu/deriveloop.sh)."""
    return os.environ.get("CIPHERSPEC_PTX_DERIVE") == "v1"


def state() -> tuple[tuple[str, str], ...]:
    """Every CIPHERSPEC_PTX_* switch set in the environment, by value: part of the key under which the CUDA
    build remembers a lowering (generator/common/memo.py), so a process that flips a switch gets the other result."""
    return tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("CIPHERSPEC_PTX_")))
