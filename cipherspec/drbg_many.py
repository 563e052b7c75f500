"""Many independent CTR_DRBG instances (one per stream / thread group), their bulk output in one pass.

Each instance is a full SP 800-90A DRBG of its own: its own entropy input and nonce, and (here) a
personalization string naming the instance, so two instances never share a (Key, V) chain even if a
caller were to reuse entropy by mistake.  The instances' request chains are planned on the host
(CtrDrbg.plan_bulk: 2-3 block encryptions per request), then ALL instances' requests go to the target's
``keystream_multi`` at once -- on the GPU one launch for every stream.

    before: [d.generate_bulk(n) for d in drbgs]          N passes (N launches on the GPU)
    after:  generate_many(drbgs, n)                       one plan per instance, one launch for all

    drbgs = instantiate_many(cipher, 64, entropy_fn=os.urandom, nonce_fn=lambda i: ...)
    outs = generate_many(drbgs, 1 << 20)                  # list of 64 outputs of 1 MiB each
Bytes equal each instance's own generate() calls.
"""

from __future__ import annotations

from collections.abc import Callable

from .drbg import MAX_BITS_PER_REQUEST, CtrDrbg, DrbgError


def personalization_for(index: int, label: bytes = b"cipherspec-instance") -> bytes:
    """The personalization string of instance ``index``: label || index (8 bytes, big-endian)."""
    return label + index.to_bytes(8, "big")


def instantiate_many(
    cipher,
    count: int,
    entropy_fn: Callable[[int], bytes],
    nonce_fn: Callable[[int], bytes],
    use_df: bool = True,
    **kwargs,
) -> list[CtrDrbg]:
    """``count`` DRBGs, instance i seeded with entropy_fn(i), nonce_fn(i) and personalization_for(i).
    Entropy must be distinct per instance (fresh from the entropy source): a repeat is refused."""
    drbgs, seen = [], set()
    for i in range(count):
        entropy = bytes(entropy_fn(i))
        if entropy in seen:
            raise DrbgError(f"instance {i}: its entropy input repeats another instance's; each needs fresh entropy")
        seen.add(entropy)
        d = CtrDrbg(cipher, use_df=use_df, **kwargs)
        d.instantiate(entropy, bytes(nonce_fn(i)), personalization_for(i) if use_df else b"")
        drbgs.append(d)
    return drbgs


def generate_many(drbgs: list, nbytes: int, request_bytes: int = MAX_BITS_PER_REQUEST // 8) -> list[bytes]:
    """``nbytes`` from every instance (consecutive requests of ``request_bytes``, no additional input)."""
    if not drbgs:
        return []
    plans = [d.plan_bulk(nbytes, request_bytes) for d in drbgs]
    cipher = drbgs[0].cipher
    if not hasattr(cipher, "keystream_multi") or any(d.cipher is not cipher for d in drbgs):
        return [
            b"".join(d._keystream(r.key, r.v, r.nblocks)[0][: r.nbytes] for r in plan) for d, plan in zip(drbgs, plans)
        ]
    out = cipher.keystream_multi([r for plan in plans for r in plan])  # each request's nbytes, concatenated
    res, pos = [], 0
    for plan in plans:
        k = sum(r.nbytes for r in plan)
        res.append(out[pos : pos + k])
        pos += k
    return res
