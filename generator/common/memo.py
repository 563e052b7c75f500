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
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

R = TypeVar("R")


def by_identity(
    size: int, extra: Callable[[], Hashable] | None = None
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """A decorator: the wrapped function's ``size`` most recent results, keyed by ``id`` of each positional
    argument (keyword arguments are not allowed) and by the value of ``extra()``; ``wrapped.cache_clear()``
    forgets them."""

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        cache: OrderedDict[tuple[Hashable, ...], tuple[tuple[Any, ...], R]] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(fn)
        def call(*args: Any) -> R:
            key = (*map(id, args), extra() if extra is not None else None)
            with lock:
                hit = cache.get(key)
                if hit is not None and all(a is b for a, b in zip(hit[0], args)):
                    cache.move_to_end(key)
                    return hit[1]
            out = fn(*args)
            with lock:
                cache[key] = (args, out)
                while len(cache) > size:
                    cache.popitem(last=False)
            return out

        call.cache_clear = cache.clear  # type: ignore[attr-defined]
        return call

    return wrap
