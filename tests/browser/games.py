"""The games the browser tests open: in progress some turns in, or finished."""

from scorekeeper.play import load, start_game
from scorekeeper.rules import Entry, Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS

# Rolls a family might throw, reused round after round to fill the sheets of a long game.
ROLLS = [
    "66653",
    "11234",
    "55521",
    "23456",
    "44441",
    "33322",
    "12346",
    "66666",
    "22215",
    "55543",
    "13456",
    "44433",
]
PLAYERS = [
    "Mag",
    "Alix",
    "Marie-Christine",
    "Bertrand",
    "Chloé",
    "Dédé",
    "Émilie",
    "Gaspard",
    "Hélène",
    "Inès",
]


def lived_in_turns(state, count):
    """Turns for a game in progress: each player scores each roll in its best allowed box."""
    turns = []
    for number in range(count):
        dice = ROLLS[number % len(ROLLS)]
        preview = state.preview(tuple(map(int, dice)))
        (column, box), _cell = max(preview.items(), key=lambda item: item[1].points)
        state = state.play(Entry(state.active_player, column, box, dice))
        turns.append((dice, f"{column}:{box}"))
    return turns


# One player's 13 boxes, best first: the totals differ by seat (below, each seat drops a box).
BOXES = [
    ("66666", "yams"),
    ("66655", "full_house"),
    ("23456", "large_straight"),
    ("12345", "small_straight"),
    ("66663", "four_kind"),
    ("66612", "three_kind"),
    ("66554", "chance"),
    ("66612", "sixes"),
    ("55512", "fives"),
    ("44412", "fours"),
    ("33312", "threes"),
    ("22213", "twos"),
    ("11123", "ones"),
]
NAMES = ["Papa", "Maman", "Léa", "Jules"]


def finished_game(seed, players, *, tie=False):
    """A finished game of `players` seats; seat n bars its Yams when n is odd (unless tie)."""
    turns = []
    for boxes in zip(*[BOXES] * players, strict=True):
        for seat, (dice, box) in enumerate(boxes):
            if box == "yams" and seat % 2 and not tie:
                dice = "12345"
            turns.append((dice, f"free:{box}"))
    return seed(NAMES[:players], turns)


def games_of(store, preset):
    """Start games of a preset in the home household, each with its players' names; its
    ``state(game_id)`` reads a game back as the server replays it."""

    def new(names):
        rules = Rules.from_dict({"preset": preset})
        return start_game(store, rules, names, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)

    new.state = lambda game_id: load(store, game_id, household=HOME_HOUSEHOLD)[1]
    return new
