"""Remember a pure function's last few results by the identity of its arguments.

IR values (Module, Function) are never changed in place: every pass builds new ones.  A function of them can
therefore be remembered by its arguments' identities; the entry keeps the arguments alive, so their ids are
not reused while it exists.  `cipherspec build` asks for the same prepared module and the same bitsliced
lowering several times per cipher (schedule choice, estimates, notes, source); this runs each once.

    @by_identity(4)
    def lower(fn: Function, module: Module) -> Function: ...   # seconds of work
    lower(f, m) is lower(f, m)      -> True (the second call does no work)
    lower(replace(f), m)            -> computed again (another object, even if equal)

A build switch read from the environment (the device A/B's CIPHERSPEC_PTX_*) changes the result for the same
arguments: ``extra`` returns such state by value, and it is part of the key.

    @by_identity(4, extra=switches)     # switches() -> (("CIPHERSPEC_PTX_BS", "v1"),)
    lower(f, m); os.environ["CIPHERSPEC_PTX_BS"] = "v1"; lower(f, m)   -> computed again

A function that reads only a Function's dataflow (each op's code, width, arguments and immediates -- an input's
name is its immediate -- and which values are returned; not origins or output names) can be remembered by that
*shape*: two kernels' copies of one core
(the single-key and the multi-key CTR's), or AES-128's and AES-256's round-loop bodies, are separate objects
with the same shape.

    @by_shape(16)
    def cover(fn: Function, max_width: int = 32) -> dict[int, Tree]: ...
    cover(enc, 64) is cover(copy_of_enc_elsewhere, 64)     -> True (origins and output names may differ)
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from cipherspec.ir import Function

R = TypeVar("R")


def by_identity(
    size: int, extra: Callable[[], Hashable] | None = None
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """A decorator: the wrapped function's ``size`` most recent results, keyed by ``id`` of each positional
    argument (keyword arguments are not allowed) and by the value of ``extra()``; ``wrapped.cache_clear()``
    forgets them."""

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        recent = _Recent(size)

        @functools.wraps(fn)
        def call(*args: Any) -> R:
            key = (*map(id, args), extra() if extra is not None else None)
            hit = recent.get(key)
            if hit is not _MISS and all(a is b for a, b in zip(hit[0], args)):
                return hit[1]
            out = fn(*args)
            recent.put(key, (args, out))
            return out

        call.cache_clear = recent.clear  # type: ignore[attr-defined]
        return call

    return wrap


_MISS = object()


class _Recent:
    """The ``size`` most recently used entries of a dict, behind a lock: both decorators' store."""

    def __init__(self, size: int):
        self.size, self.entries, self.lock = size, OrderedDict[Hashable, Any](), threading.Lock()

    def get(self, key: Hashable) -> Any:
        """The entry, now the most recent, or _MISS."""
        with self.lock:
            hit = self.entries.get(key, _MISS)
            if hit is not _MISS:
                self.entries.move_to_end(key)
            return hit

    def put(self, key: Hashable, value: Any) -> None:
        with self.lock:
            self.entries[key] = value
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


class Shape:
    """A Function's dataflow as a hashable value (its hash computed once): the ops' (code, width, args, imm)
    and the returned value ids, in order."""

    __slots__ = ("key", "_hash")

    def __init__(self, fn: Function):
        self.key = (tuple((op.code, op.width, op.args, op.imm) for op in fn.ops), tuple(v for _, v in fn.outputs))
        self._hash = hash(self.key)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Shape) and self._hash == other._hash and self.key == other.key)


@by_identity(64)
def shape(fn: Function) -> Shape:
    """``fn``'s Shape (made once per Function object)."""
    return Shape(fn)


def by_shape(size: int, extra: Callable[[], Hashable] | None = None) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """A decorator: the wrapped function's ``size`` most recent results, keyed by the Shape of each Function
    argument, the value of every other argument (hashable) and of ``extra()``.  The wrapped function must read
    nothing of a Function but its shape; callers must not change what it returns."""

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        recent = _Recent(size)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> R:
            key = (
                tuple(shape(a) if isinstance(a, Function) else a for a in args),
                tuple(sorted(kwargs.items())),
                extra() if extra is not None else None,
            )
            hit = recent.get(key)
            if hit is not _MISS:
                return hit
            out = fn(*args, **kwargs)
            recent.put(key, out)
            return out

        call.cache_clear = recent.clear  # type: ignore[attr-defined]
        return call

    return wrap
