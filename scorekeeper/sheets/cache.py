"""PDFs rendered once: a bounded memory cache, in front of a folder of the instance for blank grids.

A blank grid depends only on its rules, paper, page count and locale, and a filled sheet on
its game's version, paper and locale; both on the code and templates that draw them. The key
is a hash of all of these (``fingerprint`` covers the code and templates), so a repeated
request is a dictionary look-up, a restarted server reads the blank grid it wrote before, and
an upgrade that changes a template never serves a stale PDF.
"""

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path

from scorekeeper.lru import LruCache

# Plenty for every rule set in both papers, small next to what the app process holds anyway.
MAX_MEMORY_BYTES = 32 * 1024 * 1024
MAX_FILES = 200


def fingerprint(sources: Iterable[Path], extra: str = "") -> str:
    """A hash of every file under ``sources`` (files or folders), names and contents."""
    digest = hashlib.sha256(extra.encode())
    for source in sources:
        files = (
            [source]
            if source.is_file()
            else sorted(
                path
                for path in source.rglob("*")
                if path.is_file() and "__pycache__" not in path.parts
            )
        )
        for path in files:
            digest.update(str(path.relative_to(source.parent)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_key(identity: dict, fingerprint: str) -> str:
    text = json.dumps({"identity": identity, "fingerprint": fingerprint}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class PdfCache:
    """PDF bytes by key, in memory (least recently used first out) and in ``folder`` unless it
    is None."""

    def __init__(
        self,
        folder: Path | None,
        fingerprint: str,
        max_memory_bytes: int = MAX_MEMORY_BYTES,
        max_files: int = MAX_FILES,
    ) -> None:
        self.folder = folder
        self.fingerprint = fingerprint
        self.max_files = max_files
        self.memory_hits = 0
        self.disk_hits = 0
        self.misses = 0
        self._memory: LruCache[str, bytes] = LruCache(max_memory_bytes, weigh=len)
        # Counts only: the memory cache has its own lock.
        self._lock = threading.Lock()

    def key(self, identity: dict) -> str:
        return cache_key(identity, self.fingerprint)

    def get(self, key: str) -> bytes | None:
        pdf = self._memory.get(key)
        if pdf is not None:
            with self._lock:
                self.memory_hits += 1
            return pdf
        if self.folder is None:
            with self._lock:
                self.misses += 1
            return None
        path = self._path(key)
        try:
            pdf = path.read_bytes()
        except FileNotFoundError:
            with self._lock:
                self.misses += 1
            return None
        # A grid in use is young again, so that pruning removes the ones nobody prints.
        with contextlib.suppress(OSError):
            os.utime(path)
        with self._lock:
            self.disk_hits += 1
        self._memory.put(key, pdf)
        return pdf

    def put(self, key: str, pdf: bytes) -> None:
        self._memory.put(key, pdf)
        if self.folder is not None:
            self._write(key, pdf)

    def clear_memory(self) -> None:
        self._memory.clear()

    def _path(self, key: str) -> Path:
        # Keys are hex digests made here, never text from a request: safe as file names.
        return self.folder / f"{key}.pdf"

    def _write(self, key: str, pdf: bytes) -> None:
        """Write aside then rename: two servers, or a crash, never leave half a PDF."""
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, draft = tempfile.mkstemp(dir=self.folder, prefix=".draft-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(pdf)
            os.replace(draft, self._path(key))
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(draft)
            raise
        self._prune()

    def _prune(self) -> None:
        """Keep the newest files: grids of old templates and rare options go first."""
        files = sorted(self.folder.glob("*.pdf"), key=_mtime_or_zero, reverse=True)
        for stale in files[self.max_files :]:
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()


def _mtime_or_zero(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0
