"""Target "cuda": a generated CUDA library of one schedule, built (cached) and loaded with ctypes
(GPU machines only).

    c = CudaCipher(module, sched, source)    # generator/ptx's Backend.load makes sched and source
    rk = c.expand_key(key)                    # the library's host key schedule (generated C)
    ct = c.encrypt_blocks(rk, blocks)          # ECB through the host-buffer entry (K streams, pinned)
    c.run_mode(rk, "ctr", "encrypt", data, iv) # the kernels' CTR (counter generated on the GPU)
    c.crypt_into(rk, "ctr", "encrypt", buf, n, iv)  # the same in place on a uint8 array (CLI streaming)
    c.device_ctr(rk, iv, data, flavour="c", keystream_only=True)  # device-pointer entry, either flavour
    c.keystream_multi(plan)                    # CTR_DRBG bulk: many (Key, V) requests in one launch
    c.gpus(devices=None)                       # every visible GPU (runtime/cuda_multi.GpuSet); host-buffer calls
                                               #   (encrypt_blocks, ctr, keystream_multi) take devices= too
    c.ctr_stream(rk, iv).pipe(reader, writer)  # CTR over a byte stream in bounded memory (runtime/cuda_stream.py)

Sources are written into the cache directory and built by toolchain.nvcc (cached by content hash).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from pathlib import Path

import numpy as np

from cipherspec import modes
from cipherspec.blockcipher import as_blocks
from cipherspec.errors import UsageError
from toolchain import nvcc

from . import cuda_multi, cuda_stream
from .cuda_gcm import CudaGcm

FLAVOUR = {"ptx": 0, "c": 1}
_u8p = ctypes.POINTER(ctypes.c_uint8)


def _ptr(arr: np.ndarray | None):
    return None if arr is None else arr.ctypes.data_as(_u8p)


def source_dir() -> Path:
    d = nvcc.cache_dir().parent / "cuda-src"
    d.mkdir(parents=True, exist_ok=True)
    return d


def load_library(src) -> ctypes.CDLL:
    """Writes the generated source, builds (cached) and loads the library."""
    d = source_dir()
    cu = d / f"{src.name}.cu"
    h = d / f"{src.name}.h"
    # a family's GCM object (src.parts): named by its content here, where members whose texts differ meet
    parts = [(d / f"{p.name}.{hashlib.sha256(p.cu.encode()).hexdigest()[:12]}.cu", p.cu) for p in src.parts]
    for path, text in ((cu, src.cu), (h, src.h), *parts):
        if not path.is_file() or path.read_text() != text:
            tmp = path.with_suffix(path.suffix + f".{os.getpid()}")
            tmp.write_text(text)
            tmp.replace(path)
    so = nvcc.build_library(cu, d / f"lib{src.name}.so", parts=tuple(p for p, _ in parts))
    return ctypes.CDLL(str(so))


class CudaCipher(CudaGcm):
    target = "cuda"
    lane_keys = False

    def __init__(self, module, sched, source, lib: ctypes.CDLL | None = None):
        """``sched``: the schedule (its ``flavour`` is the default); ``source``: name, symbol, cu, h;
        ``lib``: the library already loaded (tests load one over a fake CUDA runtime), else built from source."""
        self.module = module
        self.name = module.cipher
        self.block_bytes = module.block.nbytes
        self.key_bytes = module.key.nbytes
        self.sched = sched
        self.source = source
        self.schedule_name = self.source.name
        self.lib = lib if lib is not None else load_library(self.source)
        self.P = self.source.symbol
        self.rk_words = int(self.source.h.split(f"{self.P.upper()}_RK_WORDS ")[1].split()[0])
        self._bind()
        name_buf = ctypes.create_string_buffer(256)
        sms, clk, cc = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        rc = self.fn("util_device")(name_buf, 256, ctypes.byref(sms), ctypes.byref(clk), ctypes.byref(cc))
        if rc:
            raise UsageError(f"target cuda: no usable GPU ({self.strerror(rc)})")
        self.device = {"name": name_buf.value.decode(), "sms": sms.value, "clock_khz": clk.value, "cc": cc.value}
        self._gpus: dict[tuple, cuda_multi.GpuSet] = {}

    # ------------------------------------------------------------------------------ ctypes plumbing
    def fn(self, suffix: str):
        return getattr(self.lib, f"{self.P}_{suffix}")

    def _bind(self) -> None:
        c_int, u64, vp = ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p
        sigs: dict[str, tuple[type | None, list[type]]] = {
            "strerror": (ctypes.c_char_p, [c_int]),
            "set_key": (c_int, [vp, _u8p, ctypes.c_size_t]),
            "ecb_host": (c_int, [vp, c_int, _u8p, _u8p, u64, c_int]),
            "ctr_host": (c_int, [vp, _u8p, _u8p, _u8p, u64, c_int]),
            "ecb_dev_flavour": (c_int, [vp, c_int, vp, vp, u64, vp, c_int]),
            "ctr_dev_flavour": (c_int, [vp, _u8p, vp, vp, u64, vp, c_int]),
            "ctr_multi_dev_flavour": (c_int, [vp, vp, vp, u64, vp, vp, c_int]),
            "util_malloc_host": (vp, [u64]),
            "util_free_host": (c_int, [vp]),
            "util_sync": (c_int, []),
            "util_malloc": (vp, [u64]),
            "util_free": (c_int, [vp]),
            "util_copy": (c_int, [vp, vp, u64, c_int]),
            "util_device": (c_int, [ctypes.c_char_p, c_int, vp, vp, vp]),
            "util_time": (c_int, [vp, c_int, c_int, _u8p, vp, vp, u64, c_int, c_int, ctypes.POINTER(ctypes.c_float)]),
        }
        sigs.update(cuda_multi.SIGNATURES)
        for suffix, (res, args) in sigs.items():
            f = self.fn(suffix)
            f.restype, f.argtypes = res, args
        self._bind_gcm()

    def strerror(self, rc: int) -> str:
        return self.fn("strerror")(rc).decode()

    def check(self, rc: int, what: str) -> None:
        if rc:
            raise UsageError(f"{self.schedule_name} {what}: {self.strerror(rc)} (code {rc})")

    # ------------------------------------------------------------------------------ cipher interface
    def check_key(self, key: bytes) -> None:
        if len(key) != self.key_bytes:
            raise UsageError(f"{self.name} needs a {self.key_bytes}-byte key, got {len(key)} bytes")

    def expand_key(self, key: bytes) -> np.ndarray:
        if not isinstance(key, (bytes, bytearray)):
            raise UsageError("target cuda expands one key at a time (bytes)")
        self.check_key(key)
        rk = np.zeros(self.rk_words, np.uint32)
        k = np.frombuffer(bytes(key), np.uint8).copy()
        self.check(self.fn("set_key")(rk.ctypes.data, _ptr(k), len(key)), "set_key")
        return rk

    # ------------------------------------------------------------------------------ every GPU of the host
    def device_count(self) -> int:
        """Visible CUDA devices (0 when none)."""
        n = ctypes.c_int()
        return n.value if self.fn("mg_device_count")(ctypes.byref(n)) == 0 else 0

    def gpus(self, devices=None, streams: int = cuda_multi.STREAMS) -> cuda_multi.GpuSet:
        """The device set over ``devices`` (None: every visible GPU), kept for later calls."""
        key = (cuda_multi.resolve_devices(devices, self.device_count()), streams)
        if key not in self._gpus:
            self._gpus[key] = cuda_multi.GpuSet(self, key[0], streams)
        return self._gpus[key]

    def pinned_array(self, n: int) -> np.ndarray:
        """n bytes of page-locked host memory (fastest for the host-buffer calls), freed with the array."""
        return cuda_multi.pinned_array(self, n)

    def ctr_stream(
        self, rk: np.ndarray, iv: bytes, devices=None, chunk: int = cuda_stream.CHUNK
    ) -> "cuda_stream.CtrStream":
        """CTR over a stream of bytes: the counter carries across calls; memory stays bounded."""
        return cuda_stream.CtrStream(self, rk, iv, devices, chunk)

    def ecb_stream(
        self, rk: np.ndarray, decrypt: bool = False, devices=None, chunk: int = cuda_stream.CHUNK
    ) -> "cuda_stream.EcbStream":
        """ECB over a stream of bytes (it must end on a whole block); memory stays bounded."""
        return cuda_stream.EcbStream(self, rk, decrypt, devices, chunk)

    def drbg_stream(
        self, drbg, nbytes: int, devices=None, chunk: int = cuda_stream.CHUNK, request_bytes: int = cuda_stream.REQUEST
    ) -> "cuda_stream.DrbgStream":
        """``nbytes`` of a DRBG's output (consecutive requests, no additional input) made on the GPUs."""
        return cuda_stream.DrbgStream(self, drbg, nbytes, devices, chunk, request_bytes)

    def _ecb(
        self, rk: np.ndarray, blocks, decrypt: bool, nstreams: int = cuda_multi.STREAMS, devices=None
    ) -> np.ndarray:
        blocks = np.ascontiguousarray(as_blocks(blocks, self.block_bytes))
        out = np.empty_like(blocks)
        if blocks.size:
            self.gpus(devices, nstreams).ecb(rk, blocks, decrypt, out)
        return out

    def encrypt_blocks(self, rk: np.ndarray, blocks, devices=None) -> np.ndarray:
        return self._ecb(rk, blocks, False, devices=devices)

    def decrypt_blocks(self, rk: np.ndarray, blocks, devices=None) -> np.ndarray:
        return self._ecb(rk, blocks, True, devices=devices)

    def ctr(
        self,
        rk: np.ndarray,
        iv: bytes,
        data: bytes | None,
        nbytes: int | None = None,
        nstreams: int = cuda_multi.STREAMS,
        devices=None,
        memory: str = "auto",
    ) -> bytes:
        """CTR over host buffers on ``devices`` (None: every visible GPU); data None: the keystream of nbytes."""
        if len(iv) != self.block_bytes:
            raise UsageError(f"{self.name} needs a {self.block_bytes}-byte IV, got {len(iv)} bytes")
        return self.gpus(devices, nstreams).ctr(rk, iv, data, nbytes, memory=memory).tobytes()

    def crypt_into(
        self,
        rk: np.ndarray,
        mode: str,
        direction: str,
        buf,
        n: int,
        iv=None,
        devices=None,
    ) -> None:
        """buf[:n] in place over every GPU of the host (the multi-GPU host-buffer entries: ECB, CTR; CTR
        advances ``iv`` like the C library's ctr); CBC through the generic mode (CBC encryption is
        sequential).  The CLI's streaming path calls this once per chunk, on any writable buffers."""
        # numpy views of a bytearray (the command's buffers): the writes below land in the caller's buffers
        buf, iv = (x if x is None or isinstance(x, np.ndarray) else np.frombuffer(x, np.uint8) for x in (buf, iv))
        if mode == "cbc":
            assert iv is not None  # chunked passes one for every mode but ECB
            out = self.run_mode(rk, mode, direction, buf[:n].tobytes(), iv.tobytes())
            buf[:n] = np.frombuffer(out, np.uint8)
        elif mode == "ctr":
            assert iv is not None
            if n:
                self.gpus(devices).ctr(rk, iv.tobytes(), buf[:n], out=buf[:n])
            iv[:] = np.frombuffer(modes.ctr_next_iv(iv.tobytes(), -(-n // self.block_bytes)), np.uint8)
        elif n:
            self.gpus(devices).ecb(rk, buf[:n], direction == "decrypt", out=buf[:n])

    def run_mode(self, rk, mode: str, direction: str, data: bytes, iv: bytes | None = None) -> bytes:
        if mode == "ecb":
            if len(data) % self.block_bytes:
                return modes.ecb_encrypt(self, rk, data)  # raises the usual whole-blocks error
            return self._ecb(rk, np.frombuffer(bytes(data), np.uint8), direction == "decrypt").tobytes()
        if mode == "ctr":
            if iv is None:
                raise UsageError("this mode needs an IV")
            return self.ctr(rk, iv, data)
        if mode == "cbc":  # CBC encryption is sequential: the generic mode over the block entry points
            return (modes.cbc_encrypt if direction == "encrypt" else modes.cbc_decrypt)(self, rk, iv, data)
        raise UsageError(f"unknown mode '{mode}' (modes: {', '.join(modes.MODES)})")

    # ------------------------------------------------------------------------------ device-pointer entries
    def device_buffer(self, n: int) -> "DeviceBuffer":
        return DeviceBuffer(self, n)

    def device_ctr(
        self, rk: np.ndarray, iv: bytes, data: bytes | None, nbytes: int | None = None, flavour: str = "ptx"
    ) -> bytes:
        """CTR through the device-pointer entry in either flavour (data None: keystream only)."""
        n = len(data) if data is not None else int(nbytes or 0)
        ivb = np.frombuffer(bytes(iv), np.uint8).copy()
        with self.device_buffer(max(n, 1)) as dout, self.device_buffer(max(n, 1)) as din:
            if data is not None:
                din.upload(np.frombuffer(bytes(data), np.uint8))
            rc = self.fn("ctr_dev_flavour")(
                rk.ctypes.data, _ptr(ivb), din.ptr if data is not None else None, dout.ptr, n, None, FLAVOUR[flavour]
            )
            self.check(rc, "CTR (device)")
            return dout.download(n).tobytes()

    def multi_arrays(self, plan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(keys, vs, lens) of a plan (cipherspec.drbg.BulkRequest list) for ctr_multi_dev: each request's
        length padded to whole blocks, except the last (the kernel concatenates whole-block outputs)."""
        for r in plan:
            if len(r.key) != self.key_bytes or len(r.v) != self.block_bytes or r.nbytes > r.nblocks * self.block_bytes:
                raise UsageError(
                    f"{self.name}: a bulk request needs a {self.key_bytes}-byte key, a {self.block_bytes}-byte V "
                    f"and nbytes <= nblocks * {self.block_bytes}"
                )
        keys = np.frombuffer(b"".join(bytes(r.key) for r in plan), np.uint8).copy()
        vs = np.frombuffer(b"".join(bytes(r.v) for r in plan), np.uint8).copy()
        lens = np.array([r.nblocks * self.block_bytes for r in plan], np.uint64)
        if len(plan):
            lens[-1] = plan[-1].nbytes
        return keys, vs, lens

    def keystream_multi(self, plan, flavour: str | None = None, devices=None) -> bytes:
        """Every request's output (E(key, v+1), E(key, v+2), ..., first nbytes), concatenated: the GPU path of
        CtrDrbg.generate_bulk, one multi-key launch per GPU and piece.  ``flavour`` None: the schedule's
        default, streamed to host memory in pieces; a flavour named: device-resident, one launch per GPU."""
        if not len(plan):
            return b""
        keys, vs, lens = self.multi_arrays(plan)
        g = self.gpus(devices)
        if flavour is None:
            out = g.ctr_multi(keys, vs, lens)
        else:
            first = g.parts_multi(lens)
            ends = np.concatenate([[0], np.cumsum(lens.astype(np.int64))])
            with g.alloc([int(ends[r]) for r in first]) as dout:
                g.ctr_multi_dev(keys, vs, lens, dout, FLAVOUR[flavour])
                out = dout.download()
        return self.drop_padding(plan, lens, out)

    def drop_padding(self, plan, lens: np.ndarray, out: np.ndarray) -> bytes:
        """The requests' bytes without the padding multi_arrays gave requests of partial blocks."""
        B = self.block_bytes
        if all(r.nbytes == r.nblocks * B for r in plan[:-1]):
            return out.tobytes()
        offs = np.concatenate([[0], np.cumsum(lens[:-1].astype(np.int64))])
        return b"".join(out[o : o + r.nbytes].tobytes() for o, r in zip(offs, plan))

    def device_ecb(self, rk: np.ndarray, data: bytes, decrypt: bool = False, flavour: str = "ptx") -> bytes:
        n = len(data)
        with self.device_buffer(max(n, 1)) as dout, self.device_buffer(max(n, 1)) as din:
            din.upload(np.frombuffer(bytes(data), np.uint8))
            self.check(
                self.fn("ecb_dev_flavour")(rk.ctypes.data, int(decrypt), din.ptr, dout.ptr, n, None, FLAVOUR[flavour]),
                "ECB (device)",
            )
            return dout.download(n).tobytes()


class DeviceBuffer:
    """cudaMalloc'd bytes, freed on exit (context manager)."""

    def __init__(self, c: CudaCipher, n: int):
        self.c, self.n = c, n
        self.ptr = c.fn("util_malloc")(n)
        if not self.ptr:
            raise UsageError(f"cudaMalloc of {n} bytes failed")

    def upload(self, arr: np.ndarray) -> None:
        arr = np.ascontiguousarray(arr, np.uint8)
        self.c.check(self.c.fn("util_copy")(self.ptr, arr.ctypes.data, arr.size, 1), "copy to device")

    def download(self, n: int) -> np.ndarray:
        out = np.empty(n, np.uint8)
        if n:
            self.c.check(self.c.fn("util_copy")(out.ctypes.data, self.ptr, n, 0), "copy from device")
        return out

    def free(self) -> None:
        if self.ptr:
            self.c.fn("util_free")(self.ptr)
            self.ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()


def gpu_available() -> tuple[bool, str]:
    """(True, "") when nvcc and a CUDA GPU are both present; else (False, the reason)."""
    if nvcc.find_nvcc() is None:
        return False, "nvcc not found"
    import shutil
    import subprocess

    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False, "no NVIDIA GPU on this machine (nvidia-smi not found)"
    res = subprocess.run([smi, "-L"], capture_output=True, text=True)
    if res.returncode or "GPU" not in res.stdout:
        return False, f"no NVIDIA GPU on this machine (nvidia-smi -L: {res.stdout.strip() or res.stderr.strip()})"
    return True, ""
