"""The check of every request's text at the edge (web/edge.py): which JSON holds a NUL or a
lone surrogate. The requests themselves are walked in tests/robustness/test_every_route.py."""

import json

import pytest

from scorekeeper.web.edge import json_has_forbidden_character


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ('{"name": "Mag"}', False),
        ('{"name": "\\u0000"}', True),
        ('{"name": "\\ud800"}', True),
        ('{"name": "\\uDFFF"}', True),
        ('{"name": "\\ud83d\\ude00"}', False),  # a whole pair: 😀
        ('{"name": "\\ud83d\\u0041"}', True),  # a high half followed by no low half
        ('{"name": "\\ude00\\ud83d"}', True),  # the halves in the wrong order
        ('{"name": "\\\\u0000"}', False),  # an escaped backslash, then the text "u0000"
        ('{"name": "\\\\\\u0000"}', True),  # an escaped backslash, then a NUL
        ('{"name": "Mag\x00"}', True),
        ('{"name": "\\"\\u00e9\\n"}', False),
    ],
)
def test_json_with_a_nul_or_a_lone_surrogate(text, forbidden):
    assert json_has_forbidden_character(text.encode()) == forbidden
    # Python's own JSON reader agrees on what the text holds.
    value = json.loads(text, strict=False)["name"]
    holds = "\x00" in value or any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    assert holds == forbidden
