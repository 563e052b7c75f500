"""Every GPU of the host from Python: a device set over the generated library's ``P_mg_*`` entries.

    g = cipher.gpus()                         # every visible GPU (CUDA_VISIBLE_DEVICES applies), or devices=[1, 0]
    out = g.ctr(rk, iv, data)                 # host buffers: split over the GPUs, streamed in pieces per GPU
    bufs = g.alloc(g.parts(n))                # device-resident: one buffer per GPU, part d on GPU d
    g.ctr_dev(rk, iv, None, bufs, n); ks = bufs.download()
    out = g.ctr_multi(keys, vs, lens)         # CTR_DRBG bulk output, requests split over the GPUs

The split is exact, so every output equals the one-GPU output byte for byte.  The split arithmetic is
mirrored here in Python (``split``, ``split_requests``, ...) and checked against the generated C
(tests/unit/test_cuda_multigpu.py).  The constants below are the single source for the generator
(generator/ptx/hostapi.py renders them into the library) and for this loader.

Memory modes of the host-buffer calls (``memory=``):
    "auto"      page-locked buffers are used as they are; pageable ones as PAGEABLE_DEFAULT
    "pinned"    the caller's buffers are page-locked (pinned_array, cudaHostAlloc, registered): DMA direct
    "register"  cudaHostRegister(Portable) for the call, unregistered after
    "stage"     copied through the library's page-locked staging buffers (one host thread per stream)
    "pageable"  plain copies from pageable memory: the driver stages each copy, and a copy into pageable
                memory returns only when it is done, so copies and kernels do not overlap (slowest)
"""

from __future__ import annotations

import ctypes
import os
import weakref
from math import lcm

import numpy as np

from cipherspec.errors import UsageError

MEMORY = {"auto": 0, "pinned": 1, "register": 2, "stage": 3, "pageable": 4}
PAGEABLE_DEFAULT = "stage"  # what "auto" does with pageable buffers (bench/gpu/multi.py measures the choice)
ERRORS = (  # the library's error codes beyond the single-device ones (CS_ENULL .. CS_ERESOURCE)
    ("CS_EDEVICE", 5, "a device index is not a visible CUDA device, or is listed twice"),
    ("CS_ENODEVICE", 6, "no CUDA device is visible"),
    (
        "CS_EARG",
        7,
        "bad argument (memory mode, device or stream count; an asynchronous call or "
        "CS_MEM_PINNED needs page-locked buffers)",
    ),
    ("CS_ECHUNK", 8, "a request's output is larger than one streaming piece (the context's chunk)"),
)
STREAMS = 4  # streams (pieces in flight) per GPU
MAX_STREAMS = 8
MAX_DEVICES = 64
CHUNK = 16 << 20  # the largest piece one stream carries (device buffers: 2 x CHUNK per stream)
MIN_PIECE = 1 << 20  # no smaller pieces: below it launches and copies cost more than the overlap gains
MIN_PART = 8 << 20  # a host-buffer call gives each GPU at least this much (a small call uses fewer GPUs)
# CTR_DRBG bulk output (P_mg_ctr_multi_dev, _parts_multi) under this many bytes stays on the first GPU: below it
# a second GPU's fixed cost outweighs its half of the work.  Measured (bench/gpu/drbg_multi.sh's split sweep, LEA-128
# library-timed, 2 x H200, 2026-11-27): 2 GPUs vs 1 at 4 / 8 / 16 / 32 / 64 MiB x0.90 / x0.97 / x1.17 / x1.38 / x1.62
# (16 MiB x1.05-1.41 over the earlier rounds' sweeps); CIPHERSPEC_MG_SPLIT_MIN=bytes overrides it when a context
# is made.
SPLIT_MIN = 16 << 20
# a kept device thread polls for its next job this long (microseconds) after each one before it sleeps, and
# the caller polls as long for its result: back-to-back calls then skip two thread wake-ups per call.
# CIPHERSPEC_MG_SPIN_US=us overrides it when a context is made (0: sleep at once, as before).
SPIN_US = 200
PAGE = 4096
# the per-device phases of a multi-key call (P_mg_phases, microseconds): host timestamps after the call's entry,
# then GPU lengths (events); the same order as the library's
PHASES = ("start", "planned", "enqueued", "waited", "copy", "keys", "keystream", "clear", "gpu")

_u8p = ctypes.POINTER(ctypes.c_uint8)
_vp, _int, _u64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64


# ---------------------------------------------------------------------------------- the split (mirrors)
def grain(block_bytes: int) -> int:
    """Part and piece boundaries fall on multiples of this: whole blocks and whole 4 KiB pages."""
    return lcm(block_bytes, PAGE)


def split(n: int, grain: int, parts: int) -> list[int]:
    """first[0..parts]: range d = [first[d], first[d+1]); boundaries on the grain, balanced in grains."""
    g = -(-n // grain)
    q, r = divmod(g, parts)
    return [min((q * d + min(d, r)) * grain, n) for d in range(parts + 1)]


def devices_used(n: int, ndev: int, min_part: int = MIN_PART) -> int:
    """GPUs a host-buffer call over n bytes uses: each gets at least min_part bytes; at least one."""
    k = n // min_part if min_part else ndev
    return max(1, min(k, ndev))


def piece_bytes(n: int, streams: int, grain: int, min_piece: int, chunk: int) -> int:
    """Bytes per piece of a part of n bytes: n / streams rounded up to the grain, within [min_piece, chunk]."""
    p = -(-n // streams)
    p = -(-p // grain) * grain
    return min(max(p, min_piece), chunk)


def split_requests(lens, parts: int) -> list[int]:
    """first[0..parts]: requests [first[d], first[d+1]) go to part d, balanced by output bytes (part d starts
    at the first request whose output starts at or after ceil(total * d / parts); empty with few requests)."""
    total, acc, d = sum(lens), 0, 1
    first = [0]
    for r, n in enumerate(lens):
        if d >= parts:
            break
        while d < parts and acc >= -(-total * d // parts):
            first.append(r)
            d += 1
        acc += n
    return first + [len(lens)] * (parts + 1 - len(first))


def group_end(lens, r0: int, r1: int, cap: int) -> int:
    """End of the group of requests from r0 (< r1) whose outputs fit in cap bytes; at least one request."""
    r, acc = r0 + 1, lens[r0]
    while r < r1 and acc + lens[r] <= cap:
        acc += lens[r]
        r += 1
    return r


# ---------------------------------------------------------------------------------- devices
def resolve_devices(devices, count: int) -> tuple[int, ...]:
    """The device list of a call: None = every visible GPU; else distinct indices of visible GPUs."""
    vis = os.environ.get("CUDA_VISIBLE_DEVICES")
    where = f" (CUDA_VISIBLE_DEVICES={vis!r})" if vis is not None else ""
    if count < 1:
        raise UsageError(f"target cuda: no CUDA device is visible{where}")
    if devices is None:
        return tuple(range(min(count, MAX_DEVICES)))
    devs = [devices] if isinstance(devices, int) else list(devices)
    if not devs:
        raise UsageError("devices: the list is empty (leave it out to use every visible GPU)")
    for d in devs:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise UsageError(f"devices: {d!r} is not a GPU index")
        if not 0 <= d < count:
            raise UsageError(
                f"devices: GPU {d} does not exist; {count} visible: {', '.join(map(str, range(count)))}{where}"
            )
    if len(set(devs)) != len(devs):
        raise UsageError(f"devices: a GPU is listed twice in {devs}")
    if len(devs) > MAX_DEVICES:
        raise UsageError(f"devices: at most {MAX_DEVICES} GPUs, got {len(devs)}")
    return tuple(int(d) for d in devs)


def parse_devices(text: str | None):
    """A command line's --devices: None or "all" = every visible GPU; "0,2" = those GPUs."""
    if text is None or text.strip() == "all":
        return None
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise UsageError(f"--devices: expected 'all' or GPU indices like 0,1; got {text!r}") from None


# ---------------------------------------------------------------------------------- the library's entries
SIGNATURES: dict[str, tuple[type | None, list[type]]] = {  # function suffix: (restype, argtypes)
    "mg_device_count": (_int, [_vp]),
    "mg_new": (_int, [_vp, _int, _int, _u64, _vp]),
    "mg_free": (None, [_vp]),
    "mg_devices": (_int, [_vp, _vp, _vp]),
    "mg_set_split_min": (_int, [_vp, _u64]),
    "mg_sync": (_int, [_vp]),
    "mg_parts": (_int, [_vp, _u64, _vp, _vp]),
    "mg_parts_multi": (_int, [_vp, _vp, _u64, _vp, _vp]),
    "mg_ctr_dev": (_int, [_vp, _vp, _vp, _vp, _vp, _u64, _int, _int]),
    "mg_ecb_dev": (_int, [_vp, _vp, _int, _vp, _vp, _u64, _int, _int]),
    "mg_ctr_multi_dev": (_int, [_vp, _vp, _vp, _vp, _u64, _vp, _int, _int]),
    "mg_set_phases": (_int, [_vp, _int]),
    "mg_phases": (_int, [_vp, ctypes.POINTER(ctypes.c_double), _int]),
    "mg_time_multi": (_int, [_vp, _vp, _vp, _vp, _u64, _vp, _int, _int, ctypes.POINTER(ctypes.c_double)]),
    "mg_ctr_host": (_int, [_vp, _vp, _vp, _vp, _vp, _u64, _int, _int]),
    "mg_ecb_host": (_int, [_vp, _vp, _int, _vp, _vp, _u64, _int, _int]),
    "mg_ctr_multi_host": (_int, [_vp, _vp, _vp, _vp, _u64, _vp, _int, _int]),
    "mg_device_info": (_int, [_int, ctypes.c_char_p, _int, _vp, _vp, _vp, _vp]),
    "mg_malloc": (_int, [_int, _u64, _vp]),
    "mg_free_device": (_int, [_int, _vp]),
    "mg_copy": (_int, [_int, _vp, _vp, _u64, _int]),
    "mg_malloc_host": (_int, [_u64, _vp]),
    "mg_free_host": (_int, [_vp]),
    "mg_time": (_int, [_vp, _int, _vp, _vp, _vp, _vp, _u64, _int, _int, ctypes.POINTER(ctypes.c_double)]),
    "mg_bandwidth": (_int, [_vp, _u64, _int, _int, _int, ctypes.POINTER(ctypes.c_double)]),
}


def _addr(arr) -> int | None:
    return None if arr is None else arr.ctypes.data


def _bytes_array(data) -> np.ndarray:
    if isinstance(data, np.ndarray):
        return np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    return np.frombuffer(memoryview(data).cast("B"), np.uint8)


def _memory(memory: str) -> int:
    if memory not in MEMORY:
        raise UsageError(f"memory: one of {', '.join(MEMORY)}; got {memory!r}")
    return MEMORY[memory]


def pinned_array(cipher, n: int) -> np.ndarray:
    """n bytes of page-locked host memory (every GPU's DMA reads and writes it), freed with the array."""
    ptr = ctypes.c_void_p()
    if cipher.fn("mg_malloc_host")(n, ctypes.byref(ptr)) or not ptr.value:
        raise UsageError(f"cannot allocate {n} bytes of page-locked host memory")
    p = ptr.value
    buf = (ctypes.c_uint8 * max(n, 1)).from_address(p)
    weakref.finalize(buf, cipher.fn("mg_free_host"), p)
    return np.frombuffer(buf, np.uint8)[:n]  # type: ignore[call-overload]  # a ctypes array is a buffer; numpy's stubs list only bytes-like types


def device_info(cipher, dev: int) -> dict:
    name = ctypes.create_string_buffer(256)
    sms, cc, free, total = _int(), _int(), _u64(), _u64()
    cipher.check(
        cipher.fn("mg_device_info")(
            dev, name, 256, ctypes.byref(sms), ctypes.byref(cc), ctypes.byref(free), ctypes.byref(total)
        ),
        f"GPU {dev}",
    )
    return {
        "device": dev,
        "name": name.value.decode(),
        "sms": sms.value,
        "cc": cc.value,
        "free": free.value,
        "total": total.value,
    }


class PartBuffers:
    """One device buffer per GPU of a set: part d on GPU d (``sizes[d]`` bytes); freed with close()."""

    def __init__(self, gpus: "GpuSet", sizes: list[int]):
        c = gpus.c
        self.c, self.devices, self.sizes = c, gpus.devices, list(sizes)
        infos = [device_info(c, d) for d in self.devices]
        for size, info in zip(self.sizes, infos):  # refuse before anything is allocated or computed
            if size > info["free"]:
                raise UsageError(
                    f"{size / 2**30:.2f} GiB do not fit on GPU {info['device']} ({info['name']}): "
                    f"{info['free'] / 2**30:.2f} GiB free of {info['total'] / 2**30:.2f} GiB; "
                    f"use more GPUs or the host-buffer calls"
                )
        self.ptrs: list[int] = []
        for d, size in zip(self.devices, self.sizes):
            ptr = ctypes.c_void_p()
            if c.fn("mg_malloc")(d, max(size, 1), ctypes.byref(ptr)) or not ptr.value:
                self.close()
                raise UsageError(f"cudaMalloc of {size} bytes on GPU {d} failed")
            self.ptrs.append(ptr.value)
        self.array = (ctypes.c_void_p * len(self.ptrs))(*self.ptrs)

    def upload(self, data, first: list[int]) -> None:
        src = _bytes_array(data)
        for i, (d, p) in enumerate(zip(self.devices, self.ptrs)):
            part = np.ascontiguousarray(src[first[i] : first[i + 1]])
            if part.size:
                self.c.check(self.c.fn("mg_copy")(d, p, part.ctypes.data, part.size, 1), f"copy to GPU {d}")

    def download(self, sizes: list[int] | None = None) -> np.ndarray:
        """The parts' first ``sizes[d]`` bytes (default: all), concatenated in device order."""
        sizes = self.sizes if sizes is None else sizes
        out = np.empty(sum(sizes), np.uint8)
        off = 0
        for d, p, n in zip(self.devices, self.ptrs, sizes):
            if n:
                self.c.check(self.c.fn("mg_copy")(d, out.ctypes.data + off, p, n, 0), f"copy from GPU {d}")
            off += n
        return out

    def close(self) -> None:
        for d, p in zip(self.devices, self.ptrs):
            self.c.fn("mg_free_device")(d, p)
        self.ptrs = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class GpuSet:
    """A library context (``P_mg``) over a device list: its streams and buffers are kept between calls."""

    def __init__(self, cipher, devices=None, streams: int = STREAMS, chunk: int = CHUNK):
        self.c = cipher
        self.block_bytes = cipher.block_bytes
        self.devices = resolve_devices(devices, cipher.device_count())
        if not 1 <= streams <= MAX_STREAMS:
            raise UsageError(f"streams: 1..{MAX_STREAMS}, got {streams}")
        arr = (ctypes.c_int * len(self.devices))(*self.devices)
        handle = ctypes.c_void_p()
        cipher.check(
            cipher.fn("mg_new")(arr, len(self.devices), streams, chunk, ctypes.byref(handle)), "multi-GPU context"
        )
        self.handle = handle.value
        self.streams, self.chunk = streams, chunk
        self._finalizer = weakref.finalize(self, cipher.fn("mg_free"), self.handle)

    def close(self) -> None:
        self._finalizer()

    def fn(self, suffix: str):
        return self.c.fn(suffix)

    def info(self) -> list[dict]:
        return [device_info(self.c, d) for d in self.devices]

    def sync(self) -> None:
        self.c.check(self.fn("mg_sync")(self.handle), "multi-GPU wait")

    # -------------------------------------------------------------------- host buffers
    def _out(self, out, n: int) -> np.ndarray:
        if out is None:
            return np.empty(n, np.uint8)
        if isinstance(out, np.ndarray) and not out.flags.c_contiguous:
            raise UsageError("out: a contiguous buffer is needed")
        arr = _bytes_array(out)
        if arr.size < n or not arr.flags.writeable:
            raise UsageError(f"out: a writable buffer of at least {n} bytes is needed")
        return arr[:n]

    def ctr(
        self, rk, iv: bytes, data=None, nbytes: int | None = None, out=None, memory: str = "auto", wait: bool = True
    ) -> np.ndarray:
        """CTR over host buffers (data None: the keystream of nbytes); returns ``out`` (allocated if None)."""
        if len(iv) != self.block_bytes:
            raise UsageError(f"{self.c.name} needs a {self.block_bytes}-byte IV, got {len(iv)} bytes")
        src = None if data is None else _bytes_array(data)
        n = src.size if src is not None else int(nbytes or 0)
        dst = self._out(out, n)
        ivb = np.frombuffer(bytes(iv), np.uint8).copy()
        self.c.check(
            self.fn("mg_ctr_host")(
                self.handle, rk.ctypes.data, ivb.ctypes.data, _addr(src), _addr(dst), n, _memory(memory), int(wait)
            ),
            "CTR (multi-GPU)",
        )
        return dst

    def ecb(self, rk, data, decrypt: bool = False, out=None, memory: str = "auto", wait: bool = True) -> np.ndarray:
        src = _bytes_array(data)
        if src.size % self.block_bytes:
            raise UsageError(f"ECB needs a whole number of {self.block_bytes}-byte blocks, got {src.size} bytes")
        dst = self._out(out, src.size)
        self.c.check(
            self.fn("mg_ecb_host")(
                self.handle, rk.ctypes.data, int(decrypt), _addr(src), _addr(dst), src.size, _memory(memory), int(wait)
            ),
            "ECB (multi-GPU)",
        )
        return dst

    def ctr_multi(
        self, keys: np.ndarray, vs: np.ndarray, lens: np.ndarray, out=None, memory: str = "auto", wait: bool = True
    ) -> np.ndarray:
        """CTR_DRBG bulk output (CudaCipher.multi_arrays) into host memory: requests split over the GPUs."""
        lens = np.ascontiguousarray(lens, np.uint64)
        dst = self._out(out, int(lens.sum()))
        self.c.check(
            self.fn("mg_ctr_multi_host")(
                self.handle,
                keys.ctypes.data,
                vs.ctypes.data,
                lens.ctypes.data,
                lens.size,
                _addr(dst),
                _memory(memory),
                int(wait),
            ),
            "multi-key CTR (multi-GPU)",
        )
        return dst

    # -------------------------------------------------------------------- device-resident
    def parts(self, nbytes: int) -> list[int]:
        """first[0..N]: GPU d's part of an nbytes CTR/ECB call is bytes [first[d], first[d+1])."""
        first = (ctypes.c_uint64 * (len(self.devices) + 1))()
        self.c.check(self.fn("mg_parts")(self.handle, nbytes, first, None), "multi-GPU split")
        return list(first)

    def parts_multi(self, lens: np.ndarray) -> list[int]:
        lens = np.ascontiguousarray(lens, np.uint64)
        first = (ctypes.c_uint64 * (len(self.devices) + 1))()
        self.c.check(
            self.fn("mg_parts_multi")(self.handle, lens.ctypes.data, lens.size, first, None), "multi-GPU split"
        )
        return list(first)

    def set_split_min(self, nbytes: int) -> None:
        """CTR_DRBG bulk output under ``nbytes`` stays on the first GPU (parts_multi and ctr_multi_dev agree)."""
        self.c.check(self.fn("mg_set_split_min")(self.handle, nbytes), "multi-GPU split threshold")

    def alloc(self, first: list[int]) -> PartBuffers:
        """One buffer per GPU for the split ``first`` (from parts): refused if a part does not fit."""
        return PartBuffers(self, [b - a for a, b in zip(first, first[1:])])

    def ctr_dev(
        self,
        rk,
        iv: bytes,
        d_in: PartBuffers | None,
        d_out: PartBuffers,
        nbytes: int,
        flavour: int = -1,
        wait: bool = True,
    ) -> None:
        ivb = np.frombuffer(bytes(iv), np.uint8).copy()
        self.c.check(
            self.fn("mg_ctr_dev")(
                self.handle,
                rk.ctypes.data,
                ivb.ctypes.data,
                d_in.array if d_in is not None else None,
                d_out.array,
                nbytes,
                flavour,
                int(wait),
            ),
            "CTR (multi-GPU, device)",
        )

    def ecb_dev(
        self,
        rk,
        d_in: PartBuffers,
        d_out: PartBuffers,
        nbytes: int,
        decrypt: bool = False,
        flavour: int = -1,
        wait: bool = True,
    ) -> None:
        self.c.check(
            self.fn("mg_ecb_dev")(
                self.handle, rk.ctypes.data, int(decrypt), d_in.array, d_out.array, nbytes, flavour, int(wait)
            ),
            "ECB (multi-GPU, device)",
        )

    def ctr_multi_dev(
        self,
        keys: np.ndarray,
        vs: np.ndarray,
        lens: np.ndarray,
        d_out: PartBuffers,
        flavour: int = -1,
        wait: bool = True,
    ) -> None:
        lens = np.ascontiguousarray(lens, np.uint64)
        self.c.check(
            self.fn("mg_ctr_multi_dev")(
                self.handle,
                keys.ctypes.data,
                vs.ctypes.data,
                lens.ctypes.data,
                lens.size,
                d_out.array,
                flavour,
                int(wait),
            ),
            "multi-key CTR (multi-GPU, device)",
        )

    def set_phases(self, on: bool) -> None:
        """Record the phases of the next multi-key calls (ctr_multi_dev): GPU events and host timestamps."""
        self.c.check(self.fn("mg_set_phases")(self.handle, int(on)), "multi-GPU phases")

    def phases(self) -> dict:
        """The last multi-key call's phases (made after set_phases(True)), microseconds: the call (entry to
        return) and per GPU, after the call's entry, when its job began (the hand-over), its plan was staged,
        its work enqueued, its wait returned; on the GPU the copy, key schedule, keystream and clearing."""
        nd = len(self.devices)
        out = (ctypes.c_double * (1 + len(PHASES) * nd))()
        self.c.check(self.fn("mg_phases")(self.handle, out, len(out)), "multi-GPU phases")
        per = [dict(zip(PHASES, out[1 + len(PHASES) * d : 1 + len(PHASES) * (d + 1)])) for d in range(nd)]
        return {"call_us": out[0], "devices": per}

    def time_multi(
        self, keys: np.ndarray, vs: np.ndarray, lens: np.ndarray, d_out: PartBuffers, reps: int, flavour: int = -1
    ) -> list[float]:
        """Seconds of each of ``reps`` synchronous ctr_multi_dev calls, timed inside the library (no Python
        in the measured span)."""
        lens = np.ascontiguousarray(lens, np.uint64)
        secs = (ctypes.c_double * max(reps, 1))()
        self.c.check(
            self.fn("mg_time_multi")(
                self.handle,
                keys.ctypes.data,
                vs.ctypes.data,
                lens.ctypes.data,
                lens.size,
                d_out.array,
                flavour,
                reps,
                secs,
            ),
            "multi-key CTR timing (multi-GPU, device)",
        )
        return list(secs[:reps])

    # -------------------------------------------------------------------- measurement
    def time(
        self,
        rk,
        iv: bytes | None,
        d_in: PartBuffers | None,
        d_out: PartBuffers,
        nbytes: int,
        reps: int,
        flavour: int = -1,
    ) -> float:
        """Wall-clock seconds of ``reps`` device-resident calls on every GPU (CTR if iv, else ECB)."""
        secs = ctypes.c_double()
        ivb = None if iv is None else np.frombuffer(bytes(iv), np.uint8).copy()
        self.c.check(
            self.fn("mg_time")(
                self.handle,
                0 if iv is None else 1,
                rk.ctypes.data,
                _addr(ivb),
                d_in.array if d_in is not None else None,
                d_out.array,
                nbytes,
                flavour,
                reps,
                ctypes.byref(secs),
            ),
            "timing",
        )
        return secs.value

    def bandwidth(self, nbytes: int, direction: str, pinned: bool, reps: int) -> float:
        """Copy bandwidth, GB/s per direction summed over the GPUs: "h2d", "d2h" or "both" (at once)."""
        secs = ctypes.c_double()
        code = {"h2d": 0, "d2h": 1, "both": 2}[direction]
        self.c.check(
            self.fn("mg_bandwidth")(self.handle, nbytes, code, int(pinned), reps, ctypes.byref(secs)), "bandwidth"
        )
        return nbytes * len(self.devices) * reps / secs.value / 1e9
