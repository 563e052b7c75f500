"""CTR_DRBG known-answer blocks (the two forms in ../shared/vectors), run over any target's block function.

NIST CAVP form (ctr_drbg_aes.txt): instantiate, optional Reseed(EntropyInputReseed, AdditionalInputReseed),
Generate twice, compare the SECOND output with ReturnedBits; with PredictionResistance = 1 each Generate
reseeds first with EntropyInputPR1 / EntropyInputPR2.
KISA form (ctr_drbg_kisa_sample.txt): instantiate, Generate twice, compare BOTH (ReturnedBits1/2); reseeds
that prediction resistance or ReseedInterval demand consume EntropyInputReseed1, then 2, in order.
"""

from __future__ import annotations

from collections.abc import Callable

from .drbg_choice import new_drbg
from .drbg_limits import MAX_RESEED_INTERVAL
from .errors import KatError, UsageError
from .kat_records import FileReport, KatBlock

NIST_FIELDS = {"EntropyInputReseed", "AdditionalInputReseed", "EntropyInputPR1", "EntropyInputPR2", "ReturnedBits"}
KISA_FIELDS = {"ReseedInterval", "EntropyInputReseed1", "EntropyInputReseed2", "ReturnedBits1", "ReturnedBits2"}
COMMON = {
    "Cipher",
    "DerivationFunction",
    "PredictionResistance",
    "EntropyInput",
    "Nonce",
    "PersonalizationString",
    "AdditionalInput1",
    "AdditionalInput2",
}


def _flag(b: KatBlock, name: str) -> bool:
    v = b.fields.get(name, "0")
    if v not in ("0", "1"):
        raise KatError(f"{b.where(name)}: {name} must be 0 or 1, got {v!r}")
    return v == "1"


def _opt_hex(b: KatBlock, name: str) -> bytes:
    return b.hex(name) if b.fields.get(name) else b""


def run_drbg_block(b: KatBlock, make_cipher) -> tuple[bool, str]:
    b.require("Cipher", "EntropyInput")
    unknown = set(b.fields) - COMMON - NIST_FIELDS - KISA_FIELDS
    if unknown:
        raise KatError(f"{b.where(sorted(unknown)[0])}: unknown CTR_DRBG field {sorted(unknown)[0]}")
    kisa = "ReturnedBits1" in b.fields
    b.require(*(("ReturnedBits1", "ReturnedBits2") if kisa else ("ReturnedBits",)))
    df, pr = _flag(b, "DerivationFunction"), _flag(b, "PredictionResistance")
    interval = MAX_RESEED_INTERVAL
    if b.fields.get("ReseedInterval"):
        text = b.fields["ReseedInterval"]
        if not text.isdigit():
            raise KatError(f"{b.where('ReseedInterval')}: ReseedInterval must be an integer")
        interval = int(text) or MAX_RESEED_INTERVAL
    cipher = make_cipher(b.fields["Cipher"], None)
    pool = [
        _opt_hex(b, n)
        for n in (("EntropyInputReseed1", "EntropyInputReseed2") if kisa else ("EntropyInputPR1", "EntropyInputPR2"))
        if b.fields.get(n)
    ]

    def entropy(_n: int) -> bytes:
        if not pool:
            raise KatError(f"{b.where()}: the procedure needs more reseed entropy than the block gives")
        return pool.pop(0)

    try:
        d = new_drbg(cipher, use_df=df, reseed_interval=interval, prediction_resistance=pr, entropy_source=entropy)
        d.instantiate(b.hex("EntropyInput"), _opt_hex(b, "Nonce"), _opt_hex(b, "PersonalizationString"))
        if not kisa and b.fields.get("EntropyInputReseed"):
            d.reseed(b.hex("EntropyInputReseed"), _opt_hex(b, "AdditionalInputReseed"))
        if kisa:
            want = [b.hex("ReturnedBits1"), b.hex("ReturnedBits2")]
            got = [
                d.generate(len(want[0]), _opt_hex(b, "AdditionalInput1")),
                d.generate(len(want[1]), _opt_hex(b, "AdditionalInput2")),
            ]
        else:
            want = [b.hex("ReturnedBits")]
            d.generate(len(want[0]), _opt_hex(b, "AdditionalInput1"))
            got = [d.generate(len(want[0]), _opt_hex(b, "AdditionalInput2"))]
    except UsageError as e:
        if isinstance(e, KatError):
            raise
        raise KatError(f"{b.where()}: {e}") from None
    if got == want:
        return True, ""
    which = next(i for i in range(len(want)) if got[i] != want[i])
    return False, (
        f"{b.where()}: {b.fields['Cipher']} CTR_DRBG output {which + 1} gave {got[which].hex()[:48]}, "
        f"expected {want[which].hex()[:48]}"
    )


def make_drbg_runner(make_cipher: Callable) -> Callable[[list[KatBlock], FileReport], None]:
    def run(blocks: list[KatBlock], report: FileReport) -> None:
        for b in blocks:
            ok, message = run_drbg_block(b, make_cipher)
            if ok:
                report.passed += 1
            else:
                report.failed += 1
                report.failures.append(message)

    return run
