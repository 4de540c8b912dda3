"""Every number a URL carries (ids, pages, steps, counts) is read the same way: ASCII digits,
a bounded length; anything else is a French 4xx, never a 500."""

import pytest

from scorekeeper.rules.numbers import read_whole
from scorekeeper.store.schema import MAX_DATABASE_ID

HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("text", "most", "expected"),
    [
        ("0", 9, 0),
        ("7", 9, 7),
        ("0042", 99, 42),
        (str(MAX_DATABASE_ID), MAX_DATABASE_ID, MAX_DATABASE_ID),
        (str(MAX_DATABASE_ID + 1), MAX_DATABASE_ID, None),
        ("10", 9, None),
        ("", 9, None),
        ("-1", 9, None),
        ("+1", 9, None),
        (" 1", 9, None),
        ("1.0", 9, None),
        ("²", 9, None),
        ("①", 9, None),
        ("١", 9, None),
        ("１", 9, None),
        (HUGE, 10**6, None),
        (None, 9, None),
        (3, 9, None),
    ],
)
def test_read_whole(text, most, expected):
    assert read_whole(text, most) == expected


def test_an_id_in_other_digits_is_no_game(client, table):
    """`/games/١` used to open game 1: the URL's regex took Arabic-Indic digits."""
    game_id = table.new_game(["Mag"])
    assert game_id == 1
    assert client.get("/games/1").status_code == 200
    for other_digits in ("١", "１", "¹"):
        assert client.get(f"/games/{other_digits}").status_code == 404


def test_an_id_too_large_for_a_postgresql_integer_is_not_found(client, table):
    table.new_game(["Mag"])
    assert client.get(f"/games/{2**31 - 1}").status_code == 404
    assert client.get(f"/games/{2**31}").status_code == 404
    assert client.get(f"/players/{2**31}").status_code == 404


@pytest.mark.parametrize(
    "query",
    [
        f"/hall-of-fame?page={HUGE}",
        f"/hall-of-fame?recent={HUGE}",
        f"/players?page={HUGE}",
        "/players?page=²",
        "/hall-of-fame?recent=①",
    ],
)
def test_huge_or_foreign_page_numbers_are_not_found(client, table, query):
    table.new_game(["Mag"])
    response = client.get(query)
    assert response.status_code == 404
    assert "La page" in response.get_data(as_text=True)


def test_huge_numbers_on_pages_with_an_id(client, table):
    game_id = table.new_game(["Mag", "Alix"])
    player_page = client.get(f"/players/1?page={HUGE}")
    assert player_page.status_code == 404
    step = client.get(f"/games/{game_id}/review?step={HUGE}")
    assert step.status_code == 404
    assert "l&#39;étape" in step.get_data(as_text=True)
    for other in (HUGE, "①", "-1"):
        merge = client.get(f"/players/1/merge?other={other}")
        assert merge.status_code == 200


@pytest.mark.parametrize(
    "query",
    [
        f"pages={HUGE}",
        "pages=²",
        "pages=①",
        "dice=²",
        f"dice={HUGE}",
        "dice=5.0",
    ],
)
def test_blank_sheet_numbers_are_refused_in_french(client, query):
    response = client.get(f"/sheets/blank.pdf?{query}")
    assert response.status_code == 400
    assert response.mimetype == "text/html"


@pytest.mark.parametrize("path", ["/hall-of-fame", "/players"])
@pytest.mark.parametrize("name", ["_method", "endpoint", "_external", "_scheme", "_anchor"])
def test_query_arguments_named_like_url_for_parameters(client, table, path, name):
    """The page links used to hand the query to url_for, which read these as its own."""
    table.new_game(["Mag"])
    response = client.get(f"{path}?{name}=POST")
    assert response.status_code == 200


def test_a_host_too_long_is_a_french_400_with_the_security_headers(client):
    response = client.get("/", headers={"Host": "a" * 64 + ".example"})
    assert response.status_code == 400
    assert "Host" in response.get_data(as_text=True)
    assert response.headers["X-Frame-Options"] == "DENY"
    english = client.get("/", headers={"Host": "a" * 64 + ".example", "Accept-Language": "en"})
    assert english.status_code == 400


@pytest.mark.parametrize("other", [None, "", HUGE, "١", "-2", "0"])
def test_a_merge_without_a_valid_other_player_is_refused(table, snapshot, other):
    """Without an `other` field the view used to compare 0 < None (a 500)."""
    table.new_game(["Mag", "Alix"])
    before = snapshot()
    response = table.post("/players/1/merge", {} if other is None else {"other": other})
    assert response.status_code == 422
    assert "Choisissez dans la liste" in response.get_data(as_text=True)
    assert snapshot() == before


def test_the_live_turn_reads_its_sequence_number_like_every_number(client, table):
    """`?seq=١` used to pass for 1 (int() reads Arabic-Indic digits)."""
    game_id = table.new_game(["Mag"])
    table.play(game_id, 0, "66662", "free:sixes")
    assert client.get(f"/games/{game_id}/turn?seq=1&dice=1").status_code == 200
    for seq in ("١", "¹", HUGE, "-1", ""):
        assert client.get(f"/games/{game_id}/turn?seq={seq}&dice=1").status_code == 409
