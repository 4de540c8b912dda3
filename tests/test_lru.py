"""The one small cache of the package: the least recently used out first, by count or by
weight, and safe for threads that put and read the same keys."""

import threading

from scorekeeper.lru import LruCache
from tests.support.threads import WAIT_SECONDS, joined


def test_the_least_recently_used_goes_first():
    cache = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # now the most recent
    cache.put("c", 3)
    assert cache.get("b") is None
    assert cache.keys() == ["a", "c"]
    cache.put("a", 10)  # a new value for a key takes the old one's place
    assert cache.keys() == ["c", "a"] and cache.get("a") == 10


def test_a_weighed_cache_keeps_its_weight_and_refuses_what_outweighs_it():
    cache = LruCache(10, weigh=len)
    cache.put("a", b"12345")
    cache.put("b", b"12345")
    cache.put("a", b"123")  # its weight is counted again, not twice
    cache.put("c", b"1234")
    assert cache.keys() == ["a", "c"]  # b (5) left to make room: 3 + 4 <= 10
    cache.put("huge", b"x" * 11)
    assert cache.get("huge") is None and cache.keys() == ["a", "c"]
    cache.clear()
    assert cache.keys() == []
    cache.put("d", b"x" * 10)
    assert cache.keys() == ["d"]


def test_setdefault_gives_every_thread_the_first_value_kept():
    cache = LruCache(4)
    barrier = threading.Barrier(8)
    got = []

    def make():
        barrier.wait(timeout=WAIT_SECONDS)
        got.append(cache.setdefault("key", object()))

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    joined(threads)
    assert len({id(value) for value in got}) == 1 and got[0] is cache.get("key")
