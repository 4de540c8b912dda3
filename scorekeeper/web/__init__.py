"""The web layer: thin Flask blueprints that parse, call the rules and the store, and render."""

from flask import Flask
from flask_babel import get_locale

from scorekeeper.rules import COLUMN_LABELS, PRESET_LABELS
from scorekeeper.rules.bonus import bonus_words
from scorekeeper.rules.options import OPTIONS, SEC
from scorekeeper.web import (
    advice,
    devices,
    errors,
    formats,
    games,
    halloffame,
    joining,
    language,
    live,
    main,
    pin,
    players,
    prints,
    pwa,
    quotas,
    review,
    security,
    sheet_pages,
    signin,
    spectating,
    transfer,
)
from scorekeeper.web.rule_labels import preset_offer, rule_set_label


def register_blueprints(app: Flask) -> None:
    """Attach the web blueprints, the error pages and the labels templates need."""
    security.register(app)
    signin.register(app)
    app.register_blueprint(joining.bp)
    app.register_blueprint(devices.bp)
    app.register_blueprint(spectating.bp)
    app.register_blueprint(pin.bp)
    app.register_blueprint(main.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(prints.bp)
    app.register_blueprint(pwa.bp)
    app.register_blueprint(halloffame.bp)
    app.register_blueprint(players.bp)
    app.register_blueprint(review.bp)
    app.register_blueprint(transfer.bp)
    app.register_blueprint(language.bp)
    app.register_blueprint(live.bp)
    advice.register(app)
    quotas.register(app)
    errors.register(app)
    language.install_template_gettext(app)
    app.jinja_env.filters.update(
        long_date=formats.long_date,
        medium_date=formats.medium_date,
        short_time=formats.short_time,
        game_length=formats.game_length,
        one_decimal=formats.one_decimal,
        percent=formats.percent,
    )
    app.jinja_env.globals.update(
        COLUMN_LABELS=COLUMN_LABELS,
        PRESET_LABELS=PRESET_LABELS,
        get_locale=get_locale,
        bonus_words=bonus_words,
        OPTIONS=OPTIONS,
        SEC=SEC,
        rule_set_label=rule_set_label,
        preset_offer=preset_offer,
        dice_reading=sheet_pages.dice_reading,
    )
