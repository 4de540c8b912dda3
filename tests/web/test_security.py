"""Security of the web layer: hostile ids, headers, CSRF, escaping, sizes, the household PIN."""

import io
import os
import re
import subprocess
import time
from html import unescape
from pathlib import Path

import pytest

from scorekeeper.app import SECRET_KEY_FILE, STORE_EXTENSION
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.games import load_game
from scorekeeper.web import security
from scorekeeper.web.security import require_pin
from tests.support.apps import PIN
from tests.support.forms import csrf_token
from tests.support.walk import filled_paths


def _paths(app, value: str):
    """Every route with an id, as (method, path), the ids replaced by `value`."""
    for rule in app.url_map.iter_rules():
        ids = set(re.findall(r"<int:([^>]+)>", rule.rule))
        if ids:
            values = {name: [value if name in ids else "x"] for name in rule.arguments}
            for path in filled_paths(rule, values):
                for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                    yield method, path


def test_an_id_too_large_for_the_database_is_not_found(app, client, snapshot):
    """SQLite stores integers up to 2**63 - 1; a larger id in a URL used to reach the driver,
    whose OverflowError made a 500 on every page with an id. (405 when a route of another
    method has the same path: Werkzeug checks the method before converting the id.)"""
    before = snapshot()
    for too_large in (2**63, 10**30):
        paths = list(_paths(app, str(too_large)))
        assert paths
        for method, path in paths:
            assert client.open(path, method=method).status_code in (404, 405), (method, path)
    assert client.get(f"/games/{2**63 - 1}").status_code == 404
    assert snapshot() == before


# -- headers -----------------------------------------------------------------------------------

EXPECTED_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
    "script-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}


def test_every_kind_of_response_carries_the_security_headers(client, table):
    game_id = table.new_game(["Mag"])
    responses = [
        client.get("/"),
        client.get(f"/games/{game_id}"),
        client.get("/games/new"),
        client.get("/static/css/app.css"),
        client.get("/nowhere"),
        client.post("/games/new", data={}),  # CSRF refusal
        client.put(f"/games/{game_id}"),  # 405
        client.get(f"/games/{game_id}/game.json"),
    ]
    for response in responses:
        for name, value in EXPECTED_HEADERS.items():
            assert response.headers.get(name) == value, (response.request.path, name)


def test_no_page_uses_inline_scripts_or_styles_that_the_policy_would_block(client, table):
    game_id = table.new_game(["Mag", "Alix"])
    table.play(game_id, 0, "66666", "free:yams")
    for path in (
        "/",
        "/games/new",
        f"/games/{game_id}",
        f"/games/{game_id}/undo",
        "/hall-of-fame",
        "/players",
        "/import-export",
        "/print",
    ):
        html = client.get(path).get_data(as_text=True)
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), path
        assert not re.search(r"<style\b|\sstyle=|\son[a-z]+=", html), path


# -- CSRF --------------------------------------------------------------------------------------


def _post_routes(app, game_id: int, player_id: int):
    for rule in app.url_map.iter_rules():
        if "POST" in rule.methods:
            path = re.sub(r"<int:game_id>", str(game_id), rule.rule)
            yield re.sub(r"<int:player_id>", str(player_id), path)


def test_every_post_is_refused_without_a_valid_csrf_token(app, client, table, snapshot):
    game_id = table.new_game(["Mag", "Alix"])
    table.play(game_id, 0, "66666", "free:yams")
    before = snapshot()
    paths = list(_post_routes(app, game_id, player_id=1))
    assert len(paths) >= 8, paths
    forms = {
        "seq": "1",
        "dice": "12345",
        "target": "free:chance",
        "names-0": "Zoé",
        "name": "Zoé",
        "other": "2",
        "household_pin": "0000",
        "household_replay": "1",
    }
    for path in paths:
        for token in ({}, {"csrf_token": "forged"}):
            response = client.post(path, data={**forms, **token})
            assert response.status_code == 400, path
            assert "La page a expiré" in response.get_data(as_text=True), path
    assert snapshot() == before


# -- escaping ----------------------------------------------------------------------------------

HOSTILE_NAMES = ["<img src=x onerror=alert(1)>", '"><script>alert(1)</script>']


def test_hostile_names_are_shown_as_text_on_every_page(client, table):
    game_id = table.new_game(HOSTILE_NAMES)
    paths = [f"/games/{game_id}"]
    # A few turns, a barred box (its confirmation names the player) and the flash messages.
    for seq, (dice, target) in enumerate([("66666", "free:yams"), ("12346", "free:sixes")]):
        response = table.play(game_id, seq, dice, target)
        assert response.status_code == 303
        paths.append(response.headers["Location"])
    confirm = table.play(game_id, 2, "12346", "free:full_house")
    assert confirm.status_code == 200
    solo = table.new_game([HOSTILE_NAMES[0]])
    for seq, box in enumerate(Rules().boxes):
        assert table.play(solo, seq, "12346", f"free:{box}", confirm=True).status_code == 303
    paths += [
        "/",
        f"/games/{game_id}/undo",
        f"/games/{solo}/ranking",
        f"/games/{solo}/review",
        f"/games/{game_id}/delete",
        f"/games/{game_id}/abandon",
        "/hall-of-fame",
        "/players",
        "/players/1",
        "/players/1/rename",
        "/players/1/merge",
    ]
    pages = [confirm.get_data(as_text=True)]
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        pages.append(response.get_data(as_text=True))
    for html in pages:
        assert "<img src=x" not in html and "<script>alert" not in html
    assert any("&lt;img src=x onerror=alert(1)&gt;" in html for html in pages)
    assert any("&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html for html in pages)


def test_no_template_marks_text_as_safe_html():
    """Autoescaping is the only defence the templates need; |safe would switch it off."""
    templates = Path(__file__).resolve().parents[2] / "templates"
    offenders = [
        str(path)
        for path in templates.rglob("*.html")
        if re.search(r"\|\s*safe\b|autoescape\s+false", path.read_text("utf-8"))
    ]
    assert offenders == []


# -- sizes -------------------------------------------------------------------------------------


def test_requests_too_large_are_refused_in_french_and_change_nothing(client, table, snapshot):
    game_id = table.new_game(["Mag"])
    before = snapshot()
    token = csrf_token(client)
    too_big = client.post(
        f"/games/{game_id}/entries",
        data={"csrf_token": token, "seq": "0", "dice": "6" * (1024 * 1024)},
    )
    assert too_big.status_code == 413
    assert "La demande est trop grosse." in too_big.get_data(as_text=True)
    # Werkzeug bounds the parts of a multipart form (MAX_FORM_PARTS); a urlencoded form
    # has only the 1 MB limit, which bounds its fields as well.
    too_many = client.post(
        "/games/new",
        content_type="multipart/form-data",
        data={"csrf_token": token, **{f"names-{i}": "x" for i in range(5000)}},
    )
    assert too_many.status_code == 413
    assert snapshot() == before


# -- the household PIN -------------------------------------------------------------------------


def _delete(table, game_id, **fields):
    return table.post(f"/games/{game_id}/delete", {"submit": "Oui", **fields})


def _held_fields(response) -> dict[str, str]:
    html = response.get_data(as_text=True)
    return {
        name: unescape(value)
        for name, value in re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', html)
    }


def test_without_a_pin_destructive_views_work_as_they_are(table, app):
    game_id = table.new_game(["Mag"])
    assert _delete(table, game_id).status_code == 303
    assert load_game(app.extensions[STORE_EXTENSION], game_id, household=HOME_HOUSEHOLD) is None


def test_a_held_delete_runs_once_the_pin_is_right(pin_table, pin_app):
    store = pin_app.extensions[STORE_EXTENSION]
    game_id = pin_table.new_game(["Mag"])

    held = _delete(pin_table, game_id)
    assert held.status_code == 403
    text = held.get_data(as_text=True)
    assert "Code de la maison" in text and 'type="password"' in text
    fields = _held_fields(held)
    assert fields["submit"] == "Oui" and fields["household_replay"] == "1"
    assert load_game(store, game_id, household=HOME_HOUSEHOLD) is not None

    wrong = pin_table.client.post(
        f"/games/{game_id}/delete", data={**fields, "household_pin": "1111"}
    )
    assert wrong.status_code == 403
    assert "Code faux : ce n&#39;est pas le code de la maison." in wrong.get_data(as_text=True)
    assert load_game(store, game_id, household=HOME_HOUSEHOLD) is not None

    right = pin_table.client.post(
        f"/games/{game_id}/delete", data={**_held_fields(wrong), "household_pin": f" {PIN} "}
    )
    assert right.status_code == 303
    assert load_game(store, game_id, household=HOME_HOUSEHOLD) is None

    # Unlocked for a while: the next destructive action does not ask again...
    other = pin_table.new_game(["Alix"])
    assert _delete(pin_table, other).status_code == 303


def test_the_unlock_expires(pin_table, monkeypatch):
    game_id = pin_table.new_game(["Mag"])
    held = _delete(pin_table, game_id)
    pin_table.client.post(
        f"/games/{game_id}/delete", data={**_held_fields(held), "household_pin": PIN}
    )
    later = time.time() + security.UNLOCK_SECONDS + 1
    monkeypatch.setattr(security.time, "time", lambda: later)
    second = pin_table.new_game(["Alix"])
    assert _delete(pin_table, second).status_code == 403


def test_wrong_pins_are_limited_per_address(pin_table, pin_app, monkeypatch):
    store = pin_app.extensions[STORE_EXTENSION]
    game_id = pin_table.new_game(["Mag"])
    fields = _held_fields(_delete(pin_table, game_id))
    for attempt in range(security.MAX_PIN_FAILURES):
        response = pin_table.client.post(
            f"/games/{game_id}/delete", data={**fields, "household_pin": f"000{attempt}"}
        )
        assert response.status_code == 403
    locked = pin_table.client.post(
        f"/games/{game_id}/delete", data={**fields, "household_pin": PIN}
    )
    assert locked.status_code == 429
    assert "Trop de codes faux : réessayez dans" in locked.get_data(as_text=True)
    assert load_game(store, game_id, household=HOME_HOUSEHOLD) is not None
    # Another device of the household is not locked out.
    neighbour = pin_app.test_client()
    assert (
        neighbour.post(
            f"/games/{game_id}/delete",
            data={**fields, "csrf_token": csrf_token(neighbour), "household_pin": PIN},
            environ_base={"REMOTE_ADDR": "192.168.1.30"},
        ).status_code
        == 303
    )
    # And the first one may try again once the window has passed.
    later = time.time() + security.PIN_WINDOW.total_seconds() + 1
    monkeypatch.setattr(security.time, "time", lambda: later)
    again = pin_table.new_game(["Alix"])
    fields = _held_fields(_delete(pin_table, again))
    assert (
        pin_table.client.post(
            f"/games/{again}/delete", data={**fields, "household_pin": PIN}
        ).status_code
        == 303
    )


def test_an_empty_pin_asks_again_without_counting_as_a_wrong_one(pin_table, pin_app):
    game_id = pin_table.new_game(["Mag"])
    fields = _held_fields(_delete(pin_table, game_id))
    for _ in range(security.MAX_PIN_FAILURES + 1):
        response = pin_table.client.post(
            f"/games/{game_id}/delete", data={**fields, "household_pin": ""}
        )
        assert response.status_code == 403
        assert "Tapez le code de la maison." in response.get_data(as_text=True)
    response = pin_table.client.post(
        f"/games/{game_id}/delete", data={**fields, "household_pin": PIN}
    )
    assert response.status_code == 303


def test_a_guarded_page_asks_first_then_comes_back(pin_app):
    pin_app.add_url_rule("/guarded", "guarded", require_pin(lambda: "the guarded page"))
    client = pin_app.test_client()
    asked = client.get("/guarded?tab=2")
    assert asked.status_code == 403
    fields = _held_fields(asked)
    assert fields["household_next"] == "/guarded?tab=2"
    assert 'action="/household-pin"' in asked.get_data(as_text=True)
    response = client.post("/household-pin", data={**fields, "household_pin": PIN})
    assert response.status_code == 303 and response.headers["Location"] == "/guarded?tab=2"
    assert client.get("/guarded").get_data(as_text=True) == "the guarded page"


@pytest.mark.parametrize(
    "next_url",
    ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", ""],
)
def test_the_pin_page_only_sends_back_to_this_site(pin_app, next_url):
    client = pin_app.test_client()
    response = client.post(
        "/household-pin",
        data={"csrf_token": csrf_token(client), "household_next": next_url, "household_pin": PIN},
    )
    assert response.status_code == 303 and response.headers["Location"] == "/"


def test_an_upload_asks_for_the_pin_then_for_the_file_again(pin_app):
    client = pin_app.test_client()
    response = client.post(
        "/import-export/import",
        data={"csrf_token": csrf_token(client), "file": (io.BytesIO(b"[]"), "games.json")},
        content_type="multipart/form-data",
        headers={"Referer": "http://localhost/import-export"},
    )
    assert response.status_code == 403
    assert "choisissez de nouveau le fichier" in response.get_data(as_text=True)
    fields = _held_fields(response)
    assert fields["household_next"] == "/import-export"
    unlocked = client.post("/household-pin", data={**fields, "household_pin": PIN})
    assert unlocked.headers["Location"] == "/import-export"


# -- the secret key ----------------------------------------------------------------------------


def test_the_secret_key_lives_in_the_instance_folder_never_in_the_repository(app):
    repository = Path(__file__).resolve().parents[2]
    assert Path(app.instance_path, SECRET_KEY_FILE).read_text().strip() == app.secret_key
    # Whatever the instance folder of a checkout holds, git leaves out its key and database.
    for name in (SECRET_KEY_FILE, "scorekeeper.sqlite3"):
        ignored = subprocess.run(
            ["git", "check-ignore", "-q", f"instance/{name}"], cwd=repository, check=False
        )
        assert ignored.returncode == 0, name
    skip = {".git", ".venv", "venv", "instance", "node_modules", ".hypothesis"}
    for folder, folders, files in os.walk(repository):
        folders[:] = [name for name in folders if name not in skip]
        assert SECRET_KEY_FILE not in files, folder
    for source in (repository / "scorekeeper").rglob("*.py"):
        assert not re.search(r"SECRET_KEY\s*[=:]\s*['\"]", source.read_text("utf-8")), source
