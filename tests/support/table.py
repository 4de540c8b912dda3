"""A client at the kitchen table, for the tests that play through the Flask test client."""

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.games import game_version
from testing.samples import new_game_form
from tests.support.forms import csrf_token


class Table:
    """A client at the kitchen table: starts games and plays turns through real forms."""

    def __init__(self, client):
        self.client = client

    def post(self, url, data, token=True):
        data = dict(data)
        if token:
            data["csrf_token"] = csrf_token(self.client)
        return self.client.post(url, data=data)

    def new_game(self, names, **options):
        data = {**new_game_form(names), **options}
        for key in [k for k, v in data.items() if v is False]:
            del data[key]
        response = self.post("/games/new", data)
        assert response.status_code == 303, response.get_data(as_text=True)
        return int(response.headers["Location"].rsplit("/", 1)[1])

    def version(self, game_id):
        """The version a sheet of the game shows now (the form's hidden `version`)."""
        store = self.client.application.extensions[STORE_EXTENSION]
        found = game_version(store, game_id, household=HOME_HOUSEHOLD)
        return found.token if found else "none"

    def play(self, game_id, seq, dice, target, confirm=False, version=None):
        data = {
            "seq": seq,
            "dice": dice,
            "target": target,
            "version": version or self.version(game_id),
        }
        if confirm:
            data["confirm"] = "1"
        return self.post(f"/games/{game_id}/entries", data)

    def entry_form(self, game_id, seq, **fields):
        """Any post to the entries of a game, made on its sheet as it is now."""
        return self.post(
            f"/games/{game_id}/entries", {"seq": seq, "version": self.version(game_id), **fields}
        )

    def undo(self, game_id, seq, version=None):
        return self.post(
            f"/games/{game_id}/undo", {"seq": seq, "version": version or self.version(game_id)}
        )
