"""The "Conseil" page: the boxes ranked by the final total to expect under optimal play.

Shown only when a player asks: players play their own game.
"""

import logging
import threading

from flask import Blueprint, Flask, current_app, render_template, request
from flask_babel import gettext as _

from scorekeeper.advisor import Strategy, is_covered, load, load_or_build
from scorekeeper.advisor.review import PlayerReview, TurnReview, review_game
from scorekeeper.rules import GameState, RuleError, Rules
from scorekeeper.web.store import load_or_404

bp = Blueprint("advice", __name__, url_prefix="/games")

ADVISOR_EXTENSION = "scorekeeper.advisor"

logger = logging.getLogger(__name__)


class Strategies:
    """The strategy tables of one app, loaded once; a missing table is built in the background.

    The first build takes tens of seconds: a request never waits for it.
    """

    def __init__(self, instance_path: str) -> None:
        self.instance_path = instance_path
        self.loaded: dict[Rules, Strategy] = {}
        self.building: set[Rules] = set()
        self.lock = threading.Lock()

    def get(self, rules: Rules, build: bool = True) -> Strategy | None:
        """The strategy for these rules, or None while it is missing.

        A missing table starts building in the background when ``build`` is true.
        """
        with self.lock:
            if rules in self.loaded:
                return self.loaded[rules]
            if rules in self.building:
                return None
        strategy = load(rules, self.instance_path)
        with self.lock:
            if strategy is not None:
                self.loaded[rules] = strategy
                return strategy
            if not build:
                return None
            self.building.add(rules)
        threading.Thread(target=self._build, args=(rules,), daemon=True).start()
        return None

    def _build(self, rules: Rules) -> None:
        try:
            strategy = load_or_build(rules, self.instance_path)
            with self.lock:
                self.loaded[rules] = strategy
        except Exception:
            # A failed build (a full disk, say) is retried by the next request that asks.
            logger.exception("the advisor's table could not be built")
        finally:
            with self.lock:
                self.building.discard(rules)


def register(app: Flask) -> None:
    app.extensions[ADVISOR_EXTENSION] = Strategies(app.instance_path)
    app.register_blueprint(bp)


def strategies() -> Strategies:
    return current_app.extensions[ADVISOR_EXTENSION]


@bp.get("/<int:game_id>/advice")
def show(game_id: int):
    _record, state = load_or_404(game_id)
    dice = request.args.get("dice", "")[:40]
    advice, error, status = [], None, 200
    if not is_covered(state.rules):
        error, status = _("Le conseil ne couvre que le Yams classique à une colonne libre et "
                          "cinq dés, sans règle de la vache ni Plus et Moins : pour ces "
                          "règles-ci, il n'a pas de réponse exacte."), 422
    elif (strategy := strategies().get(state.rules)) is None:
        error, status = _("Le conseil se prépare (une trentaine de secondes la première "
                          "fois) : réessayez dans un instant."), 503
    else:
        try:
            advice = strategy.advise(state, dice)
        except RuleError as rule_error:
            error, status = rule_error.render(_), 422
    return render_template("advice/show.html", game_id=game_id, state=state, dice=dice,
                           advice=advice, error=error), status


def game_review(state: GameState) -> tuple[list[TurnReview], list[PlayerReview]] | None:
    """Each turn of a finished game against optimal play, or None when there is none to show.

    None too while the table is missing: reading a past game never starts a build of tens
    of seconds; asking for advice does (or ``scorekeeper strategy``), and the page says so.
    """
    if not state.is_over or not is_covered(state.rules):
        return None
    strategy = strategies().get(state.rules, build=False)
    return None if strategy is None else review_game(strategy, state)
