"""A small cache of the values used last: bounded, safe to share between a server's threads.

Kept tables, replays, drawn pages and PDFs are all "the last N used, the oldest out first":
one class for all of them. (functools.lru_cache caches a function's calls, not values put by
one thread and read by others; cachetools is the same idea as a dependency, with a lock
still to be held around it.)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """Values by key, at most ``size`` of them, or ``size`` in all as ``weigh`` counts them
    (bytes, say); past that the least recently used go first."""

    def __init__(self, size: int, weigh: Callable[[V], int] | None = None) -> None:
        self.size = size
        self._weigh = weigh or (lambda _value: 1)
        self._kept: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (now the most recently used), or None."""
        with self._lock:
            kept = self._kept.get(key)
            if kept is None:
                return None
            self._kept.move_to_end(key)
            return kept[0]

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key``, in place of any other; a value heavier than the whole
        cache is not kept."""
        weight = self._weigh(value)
        with self._lock:
            self._keep(key, value, weight)

    def setdefault(self, key: K, value: V) -> V:
        """The value kept for ``key``, else ``value``, kept: two threads that made a value
        for the same key at once both get the first one kept."""
        weight = self._weigh(value)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
                return kept[0]
            self._keep(key, value, weight)
            return value

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self._weight = 0

    def keys(self) -> list[K]:
        """The keys kept, the least recently used first."""
        with self._lock:
            return list(self._kept)

    def _keep(self, key: K, value: V, weight: int) -> None:
        kept = self._kept.pop(key, None)
        if kept is not None:
            self._weight -= kept[1]
        if weight > self.size:
            return
        self._kept[key] = (value, weight)
        self._weight += weight
        while self._weight > self.size:
            _key, (_value, evicted) = self._kept.popitem(last=False)
            self._weight -= evicted
