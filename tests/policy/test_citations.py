"""The code, tests, benches and docs cite the project's own rules document, docs/rules.md,
never one outside the repository."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOREIGN = "RULES" + ".md"  # written in two pieces so that this file does not cite it


def test_nothing_cites_a_rules_document_outside_the_repository():
    folders = ["scorekeeper", "tests", "bench", "scripts", "testing", "docs", "templates"]
    citing = [
        str(path.relative_to(ROOT))
        for folder in folders
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
        and path.suffix in {".py", ".md", ".html", ".txt"}
        and FOREIGN in path.read_text(encoding="utf-8", errors="replace")
    ]
    citing += [
        name for name in ("README.md", "CHANGELOG.md") if FOREIGN in (ROOT / name).read_text()
    ]
    assert citing == [], f"cite docs/rules.md instead, in {citing}"
    assert (ROOT / "docs" / "rules.md").is_file()
