"""Remember a pure function's last few results by the identity of its arguments.

IR values (Module, Function) are never changed in place: every pass builds new ones.  A function of them can
therefore be remembered by its arguments' identities; the entry keeps the arguments alive, so their ids are
not reused while it exists.  `cipherspec build` asks for the same prepared module and the same bitsliced
lowering several times per cipher (schedule choice, estimates, notes, source); this runs each once.

    @by_identity(4)
    def lower(fn: Function, module: Module) -> Function: ...   # seconds of work
    lower(f, m) is lower(f, m)      -> True (the second call does no work)
    lower(replace(f), m)            -> computed again (another object, even if equal)
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")


def by_identity(size: int) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """A decorator: the wrapped function's ``size`` most recent results, keyed by ``id`` of each positional
    argument (keyword arguments are not allowed); ``wrapped.cache_clear()`` forgets them."""

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        cache: OrderedDict[tuple[int, ...], tuple[tuple[Any, ...], R]] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(fn)
        def call(*args: Any) -> R:
            key = tuple(map(id, args))
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
