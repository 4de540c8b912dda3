"""Fair seats for the open sheets' streams, hosted: a household holds LIVE_STREAMS_PER_DEVICE
streams for each device it has and a spectator link LIVE_STREAMS_PER_SPECTATOR_LINK, in each
server process; past that its own oldest ends (and asks every 5 s), never another's. A device
removed or a link revoked ends its streams: at once in its own process, within a second in
another one (PostgreSQL's NOTIFY)."""

import threading
import time

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.play import start_game
from scorekeeper.rules import Rules
from scorekeeper.store import Store
from scorekeeper.store.changes import Ended, Seat, listen_to
from scorekeeper.store.households import (
    find_household,
    list_devices,
    remove_device,
    set_spectator_token,
)
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web.store import CHANGES_EXTENSION
from tests.support.apps import HOSTED, PASSPHRASE, app_on
from tests.support.databases import ON_POSTGRESQL
from tests.support.forms import csrf_token
from tests.support.live import Stream

CLOSED = {"closed": True}
GONE = {"gone": True}


@pytest.fixture
def hosted_live(instance_path, database_url):
    """Hosted, streams lasting a minute, room for 12 in the process."""
    with app_on(
        instance_path, database_url, **HOSTED, LIVE_STREAM_SECONDS=60, LIVE_STREAMS=12
    ) as app:
        yield app


def _household(app, name: str, devices: int = 1):
    """A household signed up, with `devices` devices joined (their clients) and a game."""
    clients = [app.test_client() for _ in range(devices)]
    for number, client in enumerate(clients):
        path = "/household/new" if number == 0 else "/household/join"
        answer = client.post(
            path,
            data={"name": name, "passphrase": PASSPHRASE, "csrf_token": csrf_token(client, path)},
        )
        assert answer.status_code == 303
    store = app.extensions[STORE_EXTENSION]
    household = find_household(store, name).id
    return (
        clients,
        household,
        start_game(store, Rules(), ("Mag",), household=household, quotas=NO_QUOTAS),
    )


def test_a_household_past_its_seats_ends_its_own_oldest_stream_never_anothers(hosted_live):
    (martin,), _household_id, game = _household(hosted_live, "Les Martin")
    (durand,), _other, other_game = _household(hosted_live, "Les Durand")
    theirs = Stream(durand, f"/games/{other_game}/events")
    assert theirs.version()["seq"] == 0
    # One device: 3 seats (LIVE_STREAMS_PER_DEVICE).
    streams = [Stream(martin, f"/games/{game}/events") for _ in range(3)]
    for stream in streams:
        assert stream.version()["seq"] == 0
    newest = Stream(martin, f"/games/{game}/events")
    assert newest.version()["seq"] == 0
    # The oldest is told its seat went (its page polls instead), then ends.
    assert streams[0].version() == CLOSED
    with pytest.raises(StopIteration):
        streams[0].next()
    # The others of the household, and the other household's, still stream the game.
    changes = hosted_live.extensions[CHANGES_EXTENSION]
    assert changes.watchers == 4  # Les Durand's and Les Martin's 3
    for stream in [theirs, *streams[1:], newest]:
        stream.close()


def test_a_household_has_seats_for_each_of_its_devices(hosted_live):
    clients, _household_id, game = _household(hosted_live, "Les Martin", devices=2)
    streams = [Stream(clients[number % 2], f"/games/{game}/events") for number in range(6)]
    # 2 devices, 6 seats: none ended.
    assert all(stream.version()["seq"] == 0 for stream in streams)
    assert hosted_live.extensions[CHANGES_EXTENSION].watchers == 6
    for stream in streams:
        stream.close()


def test_a_spectator_link_holds_its_seats_and_its_streams_end_when_it_is_revoked(hosted_live):
    _clients, household, game = _household(hosted_live, "Les Martin")
    store = hosted_live.extensions[STORE_EXTENSION]
    set_spectator_token(store, game, "a-spectator-token", household=household)
    link = "/watch/a-spectator-token"
    stranger = hosted_live.test_client()
    streams = [Stream(stranger, f"{link}/events") for _ in range(3)]
    assert all(stream.version()["seq"] == 0 for stream in streams)
    fourth = Stream(stranger, f"{link}/events")
    assert fourth.version()["seq"] == 0
    assert streams[0].version() == CLOSED
    # Revoked: every stream of the link ends; its pages reload and find the link gone.
    set_spectator_token(store, game, None, household=household)
    for stream in [*streams[1:], fourth]:
        assert stream.version() == GONE
    assert stranger.get(f"{link}/events").status_code == 404


def test_a_removed_device_s_streams_end_at_once_and_the_others_stay(hosted_live):
    (first, second), household, game = _household(hosted_live, "Les Martin", devices=2)
    kept, removed = (Stream(client, f"/games/{game}/events") for client in (first, second))
    assert kept.version()["seq"] == removed.version()["seq"] == 0
    store = hosted_live.extensions[STORE_EXTENSION]
    devices = list_devices(store, household)
    newest = max(devices, key=lambda device: device.id)
    assert remove_device(store, household, newest.id)
    assert removed.version() == GONE
    with pytest.raises(StopIteration):
        removed.next()
    assert hosted_live.extensions[CHANGES_EXTENSION].watchers == 1
    kept.close()


@pytest.mark.skipif(not ON_POSTGRESQL, reason="another process hears it through NOTIFY")
def test_another_process_ends_a_removed_device_s_stream_within_a_second(hosted_live, database_url):
    (first, second), household, game = _household(hosted_live, "Les Martin", devices=2)
    device = max(
        list_devices(hosted_live.extensions[STORE_EXTENSION], household), key=lambda d: d.id
    )
    # Another server process: its own store, listening on its own connection.
    elsewhere = Store(database_url)
    try:
        changes = listen_to(elsewhere, 4)
        seat = Seat(("household", household), frozenset({("device", device.id)}))
        watcher = changes.watch(game, household=household, seat=seat, seats=3)
        ended = {}

        def wait():
            try:
                while watcher.wait(5) is not None:
                    pass
            except Ended as error:
                ended["at"] = time.monotonic()
                ended["revoked"] = error.revoked

        waiting = threading.Thread(target=wait)
        waiting.start()
        time.sleep(1.5)  # the other process listening
        removed_at = time.monotonic()
        assert remove_device(hosted_live.extensions[STORE_EXTENSION], household, device.id)
        waiting.join(timeout=5)
        assert ended["revoked"] is True
        assert ended["at"] - removed_at < 1.0
        watcher.close()
    finally:
        changes.stop()
        elsewhere.dispose()
