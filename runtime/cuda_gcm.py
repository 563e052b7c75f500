"""GCM through a CUDA library's entry points (generator/ptx/templates/gcm.cu.j2), for 128-bit blocks.

A mixin of runtime.cuda_target.CudaCipher.  The one-message calls take the oracle's arguments (a key,
IV, AAD, data) and go through the device-pointer entries; ``gcm_batch`` runs many messages (a key index,
96-bit IV, AAD and length each) in one launch; ``gcm_*_host`` use the host-buffer entries.  A wrong tag
raises cipherspec.errors.AuthenticationError, a bad parameter UsageError.

    k = c.gcm_key(key)                                      # the library's <P>_gcm_key (numpy words)
    ct, tag = c.gcm_encrypt(k, iv, aad, data, tag_len=16);  pt = c.gcm_decrypt(k, iv, aad, ct, tag)
    outs, tags = c.gcm_batch([k1, k2], [(0, iv, aad, data), (1, iv2, aad2, data2)])
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any

import numpy as np

from cipherspec.errors import AuthenticationError, UsageError

GCM_TAGS = (16, 15, 14, 13, 12, 8, 4)
CS_EAUTH = 9
_vp, _u64, _int, _size = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int, ctypes.c_size_t
_u8p = ctypes.c_char_p

SIGNATURES = {
    "gcm_set_key": (_int, [_vp, _u8p, _size]),
    "gcm_encrypt_dev": (_int, [_vp, _u8p, _size, _u8p, _size, _vp, _vp, _u64, _vp, _size, _vp]),
    "gcm_decrypt_dev": (_int, [_vp, _u8p, _size, _u8p, _size, _vp, _vp, _u64, _vp, _size, _vp, _vp]),
    "gcm_batch_dev": (_int, [_vp, ctypes.c_uint32, _vp, _u64, _vp, _int, _vp, _vp, _vp, _vp, _vp]),
    "gcm_records_dev": (_int, [_vp, ctypes.c_uint32, _vp, _u64, _u64, _vp, _int, _vp, _vp, _vp, _vp, _vp]),
    "gcm_encrypt_host": (_int, [_vp, _u8p, _size, _u8p, _size, _vp, _vp, _u64, _vp, _size]),
    "gcm_decrypt_host": (_int, [_vp, _u8p, _size, _u8p, _size, _vp, _vp, _u64, _u8p, _size]),
    "gcm_batch_host": (_int, [_vp, ctypes.c_uint32, _vp, _u64, _vp, _int, _vp, _vp, _u64, _vp, _vp]),
    "gcm_util_time": (
        _int,
        [_vp, _vp, _vp, _u64, _vp, _size, _vp, _vp, _u64, _vp, _int, _int, ctypes.POINTER(ctypes.c_float)],
    ),
}

# <P>_gcm_msg: off, len, aad_off, aad_len (u64), key, tag_len (u32), iv[12], pad (u32)
MSG = np.dtype(
    [
        ("off", "<u8"),
        ("len", "<u8"),
        ("aad_off", "<u8"),
        ("aad_len", "<u8"),
        ("key", "<u4"),
        ("tag_len", "<u4"),
        ("iv", "u1", 12),
        ("pad", "<u4"),
    ]
)


def _align16(n: int) -> int:
    return (n + 15) // 16 * 16


class CudaGcm:
    """GCM methods; the class using it provides lib, fn, check, device_buffer, block_bytes, rk_words."""

    lib: ctypes.CDLL
    P: str
    name: str
    block_bytes: int
    key_bytes: int
    rk_words: int
    if TYPE_CHECKING:

        def fn(self, suffix: str) -> Any: ...
        def check(self, rc: int, what: str) -> None: ...
        def check_key(self, key: bytes) -> None: ...
        def device_buffer(self, n: int) -> Any: ...

    @property
    def has_gcm(self) -> bool:
        return hasattr(self.lib, f"{self.P}_gcm_set_key")

    def _bind_gcm(self) -> None:
        if not self.has_gcm:
            return
        for suffix, (res, args) in SIGNATURES.items():
            f = self.fn(suffix)
            f.restype, f.argtypes = res, args

    @property
    def gcm_key_words(self) -> int:
        return self.rk_words + 64 * 4

    def _need_gcm(self) -> None:
        if not self.has_gcm:
            raise UsageError(f"GCM needs a 128-bit block; {self.name} has {8 * self.block_bytes} bits")

    def gcm_key(self, key: bytes) -> np.ndarray:
        """The library's key struct: round keys, then H^(2^e) for e < 64 (runs E(K, 0) on the device)."""
        self._need_gcm()
        self.check_key(key)
        k = np.zeros(self.gcm_key_words, np.uint32)
        self.check(self.fn("gcm_set_key")(k.ctypes.data, bytes(key), len(key)), "gcm_set_key")
        return k

    @staticmethod
    def _check_gcm(iv: bytes, tag_len: int) -> None:
        if not iv:
            raise UsageError("GCM: the IV is empty")
        if tag_len not in GCM_TAGS:
            raise UsageError(f"GCM: a tag is 16, 15, 14, 13, 12, 8 or 4 bytes, got {tag_len}")

    def gcm_encrypt(self, k: np.ndarray, iv: bytes, aad: bytes, data: bytes, tag_len: int = 16) -> tuple[bytes, bytes]:
        """One message through the device-pointer entry (device buffers made and freed here)."""
        self._need_gcm()
        self._check_gcm(iv, tag_len)
        n = len(data)
        with self.device_buffer(_align16(n) + 16) as d:
            if n:
                d.upload(np.frombuffer(bytes(data), np.uint8))
            rc = self.fn("gcm_encrypt_dev")(
                k.ctypes.data,
                bytes(iv),
                len(iv),
                bytes(aad),
                len(aad),
                d.ptr,
                d.ptr,
                n,
                d.ptr + _align16(n),
                tag_len,
                None,
            )
            self.check(rc, "GCM encrypt (device)")
            self.check(self.fn("util_sync")(), "GCM encrypt (device)")
            out = d.download(_align16(n) + 16)
        return out[:n].tobytes(), out[_align16(n) : _align16(n) + tag_len].tobytes()

    def gcm_decrypt(self, k: np.ndarray, iv: bytes, aad: bytes, data: bytes, tag: bytes) -> bytes:
        self._need_gcm()
        self._check_gcm(iv, len(tag))
        n = len(data)
        with self.device_buffer(_align16(n) + 32) as d:
            buf = np.zeros(_align16(n) + 32, np.uint8)
            buf[:n] = np.frombuffer(bytes(data), np.uint8)
            buf[_align16(n) : _align16(n) + len(tag)] = np.frombuffer(bytes(tag), np.uint8)
            buf[_align16(n) + 16 :] = 0xEE  # the ok flag: written by the call
            d.upload(buf)
            rc = self.fn("gcm_decrypt_dev")(
                k.ctypes.data,
                bytes(iv),
                len(iv),
                bytes(aad),
                len(aad),
                d.ptr,
                d.ptr,
                n,
                d.ptr + _align16(n),
                len(tag),
                d.ptr + _align16(n) + 16,
                None,
            )
            self.check(rc, "GCM decrypt (device)")
            self.check(self.fn("util_sync")(), "GCM decrypt (device)")
            out = d.download(_align16(n) + 32)
        ok = int(out[_align16(n) + 16 : _align16(n) + 20].view(np.int32)[0])
        if ok != 1:
            if ok != 0 or out[:n].any():
                raise UsageError(f"GCM decrypt (device): ok flag {ok}, output not zeroed")  # a library bug
            raise AuthenticationError()
        return out[:n].tobytes()

    def gcm_encrypt_host(self, k, iv: bytes, aad: bytes, data: bytes, tag_len: int = 16) -> tuple[bytes, bytes]:
        self._need_gcm()
        self._check_gcm(iv, tag_len)
        src = np.frombuffer(bytes(data), np.uint8).copy()
        out = np.empty(max(len(data), 1), np.uint8)
        tag = np.empty(16, np.uint8)
        rc = self.fn("gcm_encrypt_host")(
            k.ctypes.data,
            bytes(iv),
            len(iv),
            bytes(aad),
            len(aad),
            src.ctypes.data,
            out.ctypes.data,
            len(data),
            tag.ctypes.data,
            tag_len,
        )
        self.check(rc, "GCM encrypt (host)")
        return out[: len(data)].tobytes(), tag[:tag_len].tobytes()

    def gcm_decrypt_host(self, k, iv: bytes, aad: bytes, data: bytes, tag: bytes) -> bytes:
        self._need_gcm()
        self._check_gcm(iv, len(tag))
        src = np.frombuffer(bytes(data), np.uint8).copy()
        out = np.full(max(len(data), 1), 0xEE, np.uint8)
        rc = self.fn("gcm_decrypt_host")(
            k.ctypes.data,
            bytes(iv),
            len(iv),
            bytes(aad),
            len(aad),
            src.ctypes.data,
            out.ctypes.data,
            len(data),
            bytes(tag),
            len(tag),
        )
        if rc == CS_EAUTH:
            if out[: len(data)].any():
                raise UsageError("GCM decrypt (host): output not zeroed")
            raise AuthenticationError()
        self.check(rc, "GCM decrypt (host)")
        return out[: len(data)].tobytes()

    def gcm_plan(self, msgs) -> tuple[np.ndarray, bytes, int]:
        """msgs: (key index, 12-byte IV, AAD, length, tag_len) -> (<P>_gcm_msg array, AAD bytes, total bytes);
        message r's data at a 16-byte-aligned offset."""
        arr = np.zeros(len(msgs), MSG)
        aad, off = b"", 0
        for r, (key, iv, a, n, tag_len) in enumerate(msgs):
            if len(iv) != 12:
                raise UsageError(f"GCM batch: IVs are 12 bytes, got {len(iv)}")
            self._check_gcm(iv, tag_len)
            arr[r] = (off, n, len(aad), len(a), key, tag_len, np.frombuffer(bytes(iv), np.uint8), 0)
            aad += bytes(a)
            off += _align16(n)
        return arr, aad, off

    def gcm_batch(
        self,
        keys,
        msgs,
        decrypt: bool = False,
        tags=None,
        host: bool = False,
        records: bool = False,
        key_shift: int = 0,
    ):
        """keys: gcm_key arrays; msgs: (key index, 12-byte IV, AAD, data[, tag_len]).  Encrypt: (outputs,
        tags); decrypt (``tags`` given): (outputs, oks) -- a failed message's output is all zero.  ``host``:
        the host-buffer entry; ``records``: gcm_records_dev (descriptions and AAD in device memory);
        ``key_shift``: the device key table starts that many bytes into its buffer (a multiple of 4; not 16-byte
        aligned when it is not a multiple of 16)."""
        self._need_gcm()
        norm = [(m[0], m[1], m[2], bytes(m[3]), m[4] if len(m) > 4 else 16) for m in msgs]
        arr, aad, total = self.gcm_plan([(k, iv, a, len(d), t) for k, iv, a, d, t in norm])
        data = np.zeros(max(total, 16), np.uint8)
        for (_, _, _, d, _), off in zip(norm, arr["off"]):
            data[int(off) : int(off) + len(d)] = np.frombuffer(d, np.uint8)
        table = np.concatenate(list(keys)).astype(np.uint32)
        tag_arr = np.zeros(16 * len(norm), np.uint8)
        if decrypt:
            for r, t in enumerate(tags):
                tag_arr[16 * r : 16 * r + len(t)] = np.frombuffer(bytes(t), np.uint8)
        ok = np.full(len(norm), -1, np.int32)
        aad_arr = np.frombuffer(aad or b"\0", np.uint8).copy()
        if host:
            rc = self.fn("gcm_batch_host")(
                table.ctypes.data,
                len(keys),
                arr.ctypes.data,
                len(norm),
                aad_arr.ctypes.data,
                int(decrypt),
                data.ctypes.data,
                data.ctypes.data,
                total,
                tag_arr.ctypes.data,
                ok.ctypes.data,
            )
            if rc != CS_EAUTH:
                self.check(rc, "GCM batch (host)")
        else:
            nk, nd = table.nbytes, data.nbytes
            meta = np.concatenate([arr.view(np.uint8), aad_arr])
            with (
                self.device_buffer(nk + key_shift) as dk,
                self.device_buffer(nd + tag_arr.nbytes + ok.nbytes) as dd,
                self.device_buffer(meta.nbytes) as dm,
            ):
                dk.upload(np.concatenate([np.zeros(key_shift, np.uint8), table.view(np.uint8)]))
                dkeys = dk.ptr + key_shift
                dd.upload(np.concatenate([data, tag_arr, ok.view(np.uint8)]))
                dok = dd.ptr + nd + tag_arr.nbytes if decrypt else None
                if records:
                    dm.upload(meta)
                    rc = self.fn("gcm_records_dev")(
                        dkeys,
                        len(keys),
                        dm.ptr,
                        len(norm),
                        max(len(m[3]) for m in norm),
                        dm.ptr + arr.nbytes,
                        int(decrypt),
                        dd.ptr,
                        dd.ptr,
                        dd.ptr + nd,
                        dok,
                        None,
                    )
                else:
                    rc = self.fn("gcm_batch_dev")(
                        dkeys,
                        len(keys),
                        arr.ctypes.data,
                        len(norm),
                        aad_arr.ctypes.data,
                        int(decrypt),
                        dd.ptr,
                        dd.ptr,
                        dd.ptr + nd,
                        dok,
                        None,
                    )
                self.check(rc, "GCM batch (device)")
                self.check(self.fn("util_sync")(), "GCM batch (device)")
                back = dd.download(nd + tag_arr.nbytes + ok.nbytes)
                dk.upload(np.zeros(nk + key_shift, np.uint8))  # the key table, cleared
            data, tag_arr = back[:nd], back[nd : nd + tag_arr.nbytes]
            ok = back[nd + tag_arr.nbytes :].view(np.int32)
        outs = [data[int(o) : int(o) + len(d)].tobytes() for (_, _, _, d, _), o in zip(norm, arr["off"])]
        if decrypt:
            return outs, [bool(v == 1) for v in ok]
        return outs, [tag_arr[16 * r : 16 * r + t].tobytes() for r, (_, _, _, _, t) in enumerate(norm)]
