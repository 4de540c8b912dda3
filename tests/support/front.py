"""The front (deploy/nginx) in the tests: skipped with a one-line reason on a machine
without nginx, unless SCOREKEEPER_REQUIRE_PROXY=1 (set by .ci/run) makes them mandatory."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from scripts.hosted_stack import FRONT, nginx_missing

REQUIRE_PROXY_ENV = "SCOREKEEPER_REQUIRE_PROXY"
SIZE = re.compile(r"^(\d+)([kKmMgG]?)$")
UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def nginx_or_skip() -> None:
    """Skip the test without nginx, or fail it when the run requires the front."""
    missing = nginx_missing()
    if missing is None:
        return
    if os.environ.get(REQUIRE_PROXY_ENV) == "1":
        pytest.fail(f"{REQUIRE_PROXY_ENV}=1 but {missing}", pytrace=False)
    pytest.skip(f"the front: {missing}")


def nginx_size(text: str) -> int:
    """Bytes of an nginx size ("1m", "16k", "512")."""
    match = SIZE.match(text)
    if match is None:
        raise ValueError(f"not an nginx size: {text!r}")
    return int(match.group(1)) * UNITS[match.group(2).lower()]


def directives(block: str, name: str) -> list[str]:
    """The values of directive `name` in `block` itself, not in the blocks inside it."""
    depth, found = 0, []
    for raw in block.splitlines():
        line = raw.split("#", 1)[0].strip()
        if depth == 0 and line.startswith(name + " ") and line.endswith(";"):
            found.append(line[len(name) : -1].strip())
        depth += line.count("{") - line.count("}")
    return found


def location(block: str, match: str) -> str:
    """The body of `location MATCH { ... }` in `block` (one level deep)."""
    start = block.index(f"location {match} {{")
    depth, end = 0, start
    for end in range(start, len(block)):
        depth += {"{": 1, "}": -1}.get(block[end], 0)
        if depth == 0 and block[end] == "}":
            break
    return block[block.index("{", start) + 1 : end]


def http_conf() -> str:
    return (FRONT / "http.conf").read_text(encoding="utf-8")


def server_conf() -> str:
    return (FRONT / "server.conf").read_text(encoding="utf-8")


def error_pages() -> dict[tuple[str, str], Path]:
    """(language, status) -> page, for nginx's own error pages."""
    return {
        (page.parent.name, page.stem): page for page in sorted((FRONT / "errors").glob("*/*.html"))
    }
