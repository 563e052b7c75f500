"""A pool of compiler jobs that starts the largest waiting job first (longest-processing-time order).

Jobs arrive one by one while the sources are still being generated; whenever a worker is free it takes the
job with the largest size estimate (for nvcc, the .cu's length), so a big library does not start last and
run alone on one core while the others idle.

    q = LargestFirst(2)
    q.submit(6_212_237, build_aes)        # starts at once: a worker is free
    q.submit(541_397, build_lea)          # waits ...
    q.submit(11_201_828, build_aria)      # ... and this one goes before it
    q.finish()                            # waits for all; re-raises the first job's exception
    q.close()                             # (in a finally) stops the workers; queued jobs are dropped
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Callable


class LargestFirst:
    def __init__(self, workers: int):
        self._heap: list[tuple[int, int, Callable[[], object], Callable[[], object] | None]] = []
        self._cv = threading.Condition()
        self._seq = 0
        self._running = 0
        self._closed = False
        self._error: BaseException | None = None
        self._threads = [threading.Thread(target=self._work, daemon=True) for _ in range(max(1, workers))]
        for t in self._threads:
            t.start()

    def submit(self, size: int, job: Callable[[], object], done: Callable[[], object] | None = None) -> None:
        """Queues ``job`` (``done`` runs after it succeeds); raises at once if an earlier job failed."""
        with self._cv:
            if self._error is not None:
                raise self._error
            heapq.heappush(self._heap, (-size, self._seq, job, done))
            self._seq += 1
            self._cv.notify()

    def _work(self) -> None:
        while True:
            with self._cv:
                while not self._heap and not self._closed:
                    self._cv.wait()
                if self._closed or self._error is not None:
                    return
                _, _, job, done = heapq.heappop(self._heap)
                self._running += 1
            try:
                job()
                if done is not None:
                    done()
            except BaseException as e:  # handed to finish() in the caller's thread
                with self._cv:
                    if self._error is None:
                        self._error = e
            finally:
                with self._cv:
                    self._running -= 1
                    self._cv.notify_all()

    def finish(self) -> None:
        """Waits until every queued job has run (or one failed: its exception is raised here)."""
        with self._cv:
            while (self._heap or self._running) and self._error is None:
                self._cv.wait()
            if self._error is not None:
                raise self._error

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._heap.clear()
            self._cv.notify_all()
        for t in self._threads:
            t.join()
