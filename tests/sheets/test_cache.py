"""The blank-grid cache: memory first, then the instance folder; keys follow the sources."""

from scorekeeper.sheets.cache import PdfCache, cache_key, fingerprint


def test_memory_then_disk(tmp_path):
    cache = PdfCache(tmp_path / "cache", "v1")
    key = cache.key({"paper": "a4"})
    assert cache.get(key) is None and cache.misses == 1
    cache.put(key, b"%PDF-grid")
    assert cache.get(key) == b"%PDF-grid" and cache.memory_hits == 1
    # A new process (a new cache on the same folder) reads the file written before.
    again = PdfCache(tmp_path / "cache", "v1")
    assert again.get(key) == b"%PDF-grid" and again.disk_hits == 1
    assert again.get(key) == b"%PDF-grid" and again.memory_hits == 1


def test_keys_change_with_what_the_pdf_depends_on():
    assert cache_key({"paper": "a4"}, "v1") != cache_key({"paper": "letter"}, "v1")
    assert cache_key({"paper": "a4"}, "v1") != cache_key({"paper": "a4"}, "v2")
    assert cache_key({"a": 1, "b": 2}, "v1") == cache_key({"b": 2, "a": 1}, "v1")


def test_fingerprint_follows_file_contents_and_names(tmp_path):
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "blank.html").write_text("<table>")
    before = fingerprint([templates])
    assert fingerprint([templates]) == before
    (templates / "blank.html").write_text("<table class=grid>")
    changed = fingerprint([templates])
    assert changed != before
    (templates / "blank.html").rename(templates / "other.html")
    assert fingerprint([templates]) != changed
    assert fingerprint([templates], extra="weasyprint 71") != fingerprint([templates])


def test_memory_is_bounded_least_recently_used_first(tmp_path):
    cache = PdfCache(tmp_path, "v1", max_memory_bytes=10)
    cache.put("a" * 64, b"12345")
    cache.put("b" * 64, b"12345")
    cache.get("a" * 64)
    cache.put("c" * 64, b"12345")
    cache.clear_memory()
    assert cache.memory_hits == 1
    # Evicted from memory is still on disk.
    assert cache.get("b" * 64) == b"12345" and cache.disk_hits == 1


def test_the_folder_keeps_the_newest_files(tmp_path):
    cache = PdfCache(tmp_path, "v1", max_files=3)
    for index in range(5):
        cache.put(f"{index:064x}", b"%PDF")
    assert len(list(tmp_path.glob("*.pdf"))) == 3
    assert not list(tmp_path.glob(".draft-*"))
