"""The turn arrives, not the page: each open sheet's stream carries, with a new version of a
game in progress, the sheet of that version, drawn once for every tablet (web/live.py,
web/sheet_pages.py), with the tablet's own CSRF token; a removed device gets no more of them."""

import re

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.households import create_household
from scorekeeper.store.lifecycle import abandon_game
from scorekeeper.web.passphrases import passphrase_hash
from tests.support.apps import HOSTED, PASSPHRASE, app_on
from tests.support.forms import CSRF_FIELD, csrf_token_in, post
from tests.support.live import LASTING, SWAP, Stream, sheets_drawn, turn_from
from tests.support.table import Table
from tests.support.walk import join_household


def test_the_other_tablets_get_the_new_sheet_drawn_once_each_with_its_own_token(
    instance_path, database_url
):
    with app_on(instance_path, database_url, **LASTING) as app:
        player = Table(app.test_client())
        game_id = player.new_game(["Mag", "Alix"])
        others = [app.test_client() for _ in range(3)]
        streams = []
        for other in others:
            other.get(f"/games/{game_id}")
            streams.append(Stream(other, f"/games/{game_id}/events"))
            assert "sheet" not in streams[-1].version()  # the version shown: nothing to swap
        page = player.client.get(f"/games/{game_id}").text
        with sheets_drawn(app) as drawn:
            answer = player.client.post(
                f"/games/{game_id}/entries",
                data=turn_from(page, 0, "66662", "free:sixes"),
                headers=SWAP,
            )
            events = [stream.version() for stream in streams]
        assert answer.status_code == 200
        assert len(drawn) == 1
        # The player's tablet is told what it wrote in the answer itself, not through the
        # session (no cookie to sign and send back), and once only.
        assert "Mag marque 24 en Six." in answer.text
        assert "Set-Cookie" not in answer.headers
        assert "Mag marque 24 en Six." not in player.client.get(f"/games/{game_id}").text
        version = player.version(game_id)
        tokens = set()
        for event in events:
            assert (event["seq"], event["version"], event["path"]) == (
                1,
                version,
                f"/games/{game_id}",
            )
            assert "À Alix de jouer" in event["sheet"] and "<main" in event["sheet"]
            assert f'data-live-version="{version}"' in event["sheet"]
            # What the player's tablet was told stays there.
            assert "Mag marque 24 en Six." not in event["sheet"]
            assert "slot" not in event["sheet"]
            tokens |= set(CSRF_FIELD.findall(event["sheet"]))
        assert len(tokens) == 3
        # A tablet plays the next turn from the sheet it was pushed: its token is its own.
        response = others[1].post(
            f"/games/{game_id}/entries",
            data=turn_from(events[1]["sheet"], 1, "11123", "free:ones"),
        )
        assert response.status_code == 303
        assert [stream.version()["seq"] for stream in streams] == [2, 2, 2]
        for stream in streams:
            stream.close()


def test_no_sheet_is_pushed_once_the_game_is_no_longer_in_progress(instance_path, database_url):
    with app_on(instance_path, database_url, **LASTING) as app:
        table = Table(app.test_client())
        game_id = table.new_game(["Mag"])
        stream = Stream(table.client, f"/games/{game_id}/events")
        stream.version()
        abandon_game(app.extensions[STORE_EXTENSION], game_id, household=HOME_HOUSEHOLD)
        event = stream.version()
        assert event["status"] == "abandoned" and "sheet" not in event
        stream.close()


def test_a_removed_device_s_stream_ends_and_is_pushed_no_more_sheets(instance_path, database_url):
    with app_on(instance_path, database_url, **HOSTED, **LASTING) as app:
        owner, tablet = app.test_client(), app.test_client()
        create_household(app.extensions[STORE_EXTENSION], "Les Martin", passphrase_hash(PASSPHRASE))
        join_household(owner, "Les Martin", PASSPHRASE)
        join_household(tablet, "Les Martin", PASSPHRASE)
        answer = post(owner, "/games/new", {"names-0": "Zoé", "preset": "classique"})
        game_id = int(answer.headers["Location"].rsplit("/", 1)[1])
        stream = Stream(tablet, f"/games/{game_id}/events")
        stream.version()
        sheet = owner.get(f"/games/{game_id}").text
        owner.post(f"/games/{game_id}/entries", data=turn_from(sheet, 0, "66662", "free:sixes"))
        assert "Zoé" in stream.version()["sheet"]
        devices = owner.get("/household/devices").text
        # The latest seen first: the tablet, which joined last.
        (removed, _owner) = re.findall(r'name="device" value="(\d+)"', devices)
        form = {"device": removed, "csrf_token": csrf_token_in(devices)}
        response = owner.post("/household/devices/remove", data=form)
        assert response.status_code == 303
        sheet = owner.get(f"/games/{game_id}").text
        # Answered with the new sheet: drawn and kept before the stream looks for it.
        answer = owner.post(
            f"/games/{game_id}/entries",
            data=turn_from(sheet, 1, "11123", "free:ones"),
            headers=SWAP,
        )
        assert answer.status_code == 200
        # Its stream ended at the removal (tests/web/test_fair_seats.py): its page reloads
        # and finds itself signed out.
        assert stream.version() == {"gone": True}
        assert tablet.get(f"/games/{game_id}").status_code == 302
        stream.close()
