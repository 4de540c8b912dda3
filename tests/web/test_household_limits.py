"""Hosted limits on passphrases and sign-ups: a stranger can lock no family out, a limit holds
when the tries come all at once (threads against the app, on the suite's database: SQLite or
PostgreSQL), and a sign-up beyond its limit is refused before any passphrase is hashed.

`-n 0 -s` prints what the simultaneous tries did, for the README."""

import html
import threading
from collections.abc import Callable

import pytest

import scorekeeper.web.joining as web_joining
from scorekeeper.app import STORE_EXTENSION
from scorekeeper.store.households import count_households
from scorekeeper.web.joining import MAX_PASSPHRASE_FAILURES
from tests.support.apps import HOSTED, PASSPHRASE, app_on
from tests.support.forms import csrf_token
from tests.support.threads import WAIT_SECONDS, joined

SIMULTANEOUS = 40


def _form(client, path: str, address: str, **fields):
    """A form posted from `address`, its CSRF token fetched first."""
    return client.post(
        path,
        environ_base={"REMOTE_ADDR": address},
        data={**fields, "csrf_token": csrf_token(client, path)},
    )


def _join(client, address: str, passphrase: str = PASSPHRASE, name: str = "Les Martin"):
    return _form(client, "/household/join", address, name=name, passphrase=passphrase)


def _signup(client, address: str, name: str):
    return _form(client, "/household/new", address, name=name, passphrase=PASSPHRASE)


def _counting(monkeypatch, name: str) -> list:
    """Count the calls of web/joining.py's `name` (a passphrase checked or hashed)."""
    calls = []
    lock = threading.Lock()
    real = getattr(web_joining, name)

    def counted(*args, **kwargs):
        with lock:
            calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(web_joining, name, counted)
    return calls


def _at_once(app, count: int, send: Callable) -> list[int]:
    """`count` clients, each with its form's token in hand, send at the same moment."""
    clients = [app.test_client() for _ in range(count)]
    tokens = [csrf_token(client, send.path) for client in clients]
    barrier = threading.Barrier(count)
    statuses = []

    def run(client, token):
        barrier.wait(timeout=WAIT_SECONDS)
        statuses.append(send(client, token).status_code)

    threads = [
        threading.Thread(target=run, args=pair) for pair in zip(clients, tokens, strict=True)
    ]
    for thread in threads:
        thread.start()
    joined(threads)
    return statuses


@pytest.fixture
def martin(hosted):
    assert _signup(hosted.test_client(), "10.9.9.9", "Les Martin").status_code == 303
    return hosted


def test_simultaneous_tries_from_one_address_check_no_more_than_the_limit(
    martin, monkeypatch, capsys
):
    checks = _counting(monkeypatch, "matches")

    def send(client, token):
        return client.post(
            "/household/join",
            data={"name": "Les Martin", "passphrase": "a wrong guess", "csrf_token": token},
        )

    send.path = "/household/join"
    statuses = _at_once(martin, SIMULTANEOUS, send)
    assert len(checks) == MAX_PASSPHRASE_FAILURES
    # Past the limit, a 429 at once. Within it, a wrong passphrase's 422, or a 503 when
    # the strangers' one seat for hashing (web/passphrases.py) is taken: no more than the
    # limit ever reach the hashing, however many arrive together.
    assert statuses.count(429) == SIMULTANEOUS - MAX_PASSPHRASE_FAILURES
    admitted = [status for status in statuses if status != 429]
    assert set(admitted) <= {422, 503} and 422 in admitted
    with capsys.disabled():
        engine = martin.extensions[STORE_EXTENSION].engine.dialect.name
        print(
            f"\n{engine}: {SIMULTANEOUS} simultaneous tries from one address, "
            f"{len(checks)} passphrases let through to be checked "
            f"({admitted.count(422)} checked, {admitted.count(503)} told to come back), "
            f"limit {MAX_PASSPHRASE_FAILURES}"
        )


def test_a_stranger_cannot_lock_a_family_out(martin):
    stranger = martin.test_client()
    for _ in range(3 * MAX_PASSPHRASE_FAILURES):
        assert _join(stranger, "203.0.113.7", passphrase="a wrong guess").status_code in (422, 429)
    # The stranger waits, even with the right passphrase...
    refused = _join(stranger, "203.0.113.7")
    assert refused.status_code == 429 and refused.headers["Retry-After"]
    assert "Trop d'essais : réessayez dans" in html.unescape(refused.get_data(as_text=True))
    # ...and the family's new tablet, from an address that has not failed, joins.
    tablet = martin.test_client()
    assert _join(tablet, "198.51.100.20").status_code == 303
    assert tablet.get("/").status_code == 200


def test_guesses_spread_over_addresses_stop_those_addresses_only(martin):
    guessers = [f"203.0.113.{number}" for number in range(1, MAX_PASSPHRASE_FAILURES + 1)]
    for address in guessers:
        assert _join(martin.test_client(), address, "a wrong guess").status_code == 422
    # The name has had its wrong passphrases: an address among them waits, right or wrong.
    assert _join(martin.test_client(), guessers[0]).status_code == 429
    # A new address is still heard: the family's tablet joins, a new guesser gets its answer.
    assert _join(martin.test_client(), "198.51.100.20").status_code == 303
    assert _join(martin.test_client(), "203.0.113.99", "a wrong guess").status_code == 422
    # Other households' names are not held up by this one's guessers.
    assert _signup(martin.test_client(), "10.9.9.8", "Les Autres").status_code == 303
    assert _join(martin.test_client(), guessers[1], name="Les Autres").status_code == 303


def test_one_home_is_one_address_whatever_its_ipv6_address(martin):
    for host in range(MAX_PASSPHRASE_FAILURES):
        _join(martin.test_client(), f"2001:db8:1:2::{host + 1}", "a wrong guess")
    assert _join(martin.test_client(), "2001:db8:1:2:ffff::9").status_code == 429
    assert _join(martin.test_client(), "2001:db8:1:3::1").status_code == 303


@pytest.fixture
def few_signups(instance_path, database_url):
    with app_on(
        instance_path, database_url, **HOSTED, SIGNUPS_PER_ADDRESS=2, SIGNUPS_PER_HOUR=3
    ) as app:
        yield app


def test_sign_up_is_limited_per_address_then_overall_before_any_hash(few_signups, monkeypatch):
    hashes = _counting(monkeypatch, "new_hash")
    client = few_signups.test_client()
    assert _signup(client, "203.0.113.1", "Les Un").status_code == 303
    # A taken name counts against its address: the limit bounds asking which names exist.
    assert _signup(few_signups.test_client(), "203.0.113.1", "LES UN").status_code == 422
    refused = _signup(few_signups.test_client(), "203.0.113.1", "Les Deux")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 3000
    assert len(hashes) == 1
    assert _signup(few_signups.test_client(), "203.0.113.2", "Les Deux").status_code == 303
    # The taken name and the refused try counted against their address only: the overall
    # limit, three households created, has room for a third.
    assert _signup(few_signups.test_client(), "203.0.113.3", "Les Trois").status_code == 303
    refused = _signup(few_signups.test_client(), "203.0.113.4", "Les Quatre")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 3000
    assert len(hashes) == 3
    assert count_households(few_signups.extensions[STORE_EXTENSION]) == 4  # home + 3


# A stranger's flood of taken names: every address it has tries as often as it may.
FLOOD_ADDRESSES = 13


def _flood_addresses(app) -> list[str]:
    per_address = app.config["SIGNUPS_PER_ADDRESS"]
    return [f"203.0.113.{number}" for number in range(1, FLOOD_ADDRESSES + 1)] * per_address


def test_a_flood_of_taken_names_leaves_sign_up_open_to_a_new_family(martin, monkeypatch):
    """With the limits as shipped: each address of the flood gets its answers, then waits;
    more tries in all than the overall limit allows households, and a family from an address
    of its own still signs up."""
    hashes = _counting(monkeypatch, "new_hash")
    flood = _flood_addresses(martin)
    assert len(flood) > martin.config["SIGNUPS_PER_HOUR"]
    statuses = [
        _signup(martin.test_client(), address, "Les Martin").status_code for address in flood
    ]
    assert statuses == [422] * len(flood)
    assert _signup(martin.test_client(), flood[0], "Les Martin").status_code == 429
    assert _signup(martin.test_client(), "198.51.100.20", "Les Nouveaux").status_code == 303
    assert len(hashes) == 1


def test_a_flood_of_taken_names_at_once_leaves_sign_up_open_to_a_new_family(
    martin, monkeypatch, capsys
):
    hashes = _counting(monkeypatch, "new_hash")
    flood = iter(_flood_addresses(martin))
    lock = threading.Lock()

    def send(client, token):
        with lock:
            address = next(flood)
        return client.post(
            "/household/new",
            environ_base={"REMOTE_ADDR": address},
            data={"name": "LES MARTIN", "passphrase": PASSPHRASE, "csrf_token": token},
        )

    send.path = "/household/new"
    tries = len(_flood_addresses(martin))
    statuses = _at_once(martin, tries, send)
    assert statuses == [422] * tries
    assert hashes == []
    assert _signup(martin.test_client(), "198.51.100.20", "Les Nouveaux").status_code == 303
    with capsys.disabled():
        engine = martin.extensions[STORE_EXTENSION].engine.dialect.name
        print(
            f"\n{engine}: {tries} taken names at once from {FLOOD_ADDRESSES} addresses, "
            f"then a new family from another address: signed up"
        )


def test_sign_ups_at_once_from_many_addresses_create_no_more_than_the_overall_limit(
    few_signups, monkeypatch
):
    """Families and a stranger's taken names at once: of the new names, as many households
    as the overall limit allows are created, the others refused before any hash; the taken
    names take no family's place."""
    hashes = _counting(monkeypatch, "new_hash")
    assert _signup(few_signups.test_client(), "10.9.9.9", "Les Martin").status_code == 303
    tries = iter(
        [(f"203.0.113.{number}", "Les Martin") for number in range(10)]
        + [(f"198.51.100.{number}", f"Maison {number}") for number in range(10)]
    )
    lock = threading.Lock()

    def send(client, token):
        with lock:
            address, name = next(tries)
        return client.post(
            "/household/new",
            environ_base={"REMOTE_ADDR": address},
            data={"name": name, "passphrase": PASSPHRASE, "csrf_token": token},
        )

    send.path = "/household/new"
    statuses = _at_once(few_signups, 20, send)
    assert sorted(statuses) == [303, 303] + [422] * 10 + [429] * 8
    assert len(hashes) == 3  # Les Martin's, then the two new households'
    assert count_households(few_signups.extensions[STORE_EXTENSION]) == 4  # home + 3


def test_a_sign_up_flood_from_one_address_at_once_hashes_no_more_than_the_limit(
    few_signups, monkeypatch
):
    hashes = _counting(monkeypatch, "new_hash")
    names = iter(f"Maison {number}" for number in range(SIMULTANEOUS))
    lock = threading.Lock()

    def send(client, token):
        with lock:
            name = next(names)
        return client.post(
            "/household/new", data={"name": name, "passphrase": PASSPHRASE, "csrf_token": token}
        )

    send.path = "/household/new"
    statuses = _at_once(few_signups, 20, send)
    assert sorted(statuses) == [303, 303] + [429] * 18
    assert len(hashes) == 2
