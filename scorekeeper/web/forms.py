"""Flask-WTF forms: every POST carries a CSRF token; every field says what it wants in French."""

import functools

from babel.support import Translations
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    FieldList,
    HiddenField,
    IntegerField,
    RadioField,
    SelectField,
    StringField,
    SubmitField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.i18n import messages_path
from wtforms.validators import InputRequired, Length, NumberRange, Optional, Regexp

from scorekeeper.rules.labels import PRESET_LABELS
from scorekeeper.rules.numbers import read_whole
from scorekeeper.rules.options import OPTIONS, PRESETS, SEC, Option
from scorekeeper.rules.players import MAX_NAME_LENGTH, MAX_PLAYERS
from scorekeeper.store.schema import MAX_DATABASE_ID, TURN_KEY_LENGTH

# More throws than any game saves (20 turns save at most 40): a bigger number is no turn.
MAX_THROWS = 10_000

# The form's template offers each by its country and language (``rule_labels.preset_offer``).
PRESET_CHOICES = [SelectChoice(preset, _l(PRESET_LABELS[preset])) for preset in PRESETS]


@functools.cache
def _wtforms_catalogue(locale: str) -> Translations:
    return Translations.load(messages_path(), [locale], domain="wtforms")


def database_id(value: str | int) -> int:
    """The id of a row, as a select's `coerce` wants it: the choices' ids as they are, the
    posted text read by `read_whole`; ValueError for anything else."""
    number = value if isinstance(value, int) else read_whole(value, MAX_DATABASE_ID)
    if number is None:
        raise ValueError(value)
    return number


# Longer than any GameVersion.token ("39:2026-11-30T13:51:39.123456+00:00").
VERSION_LENGTH = 64

# A turn's key as sheet.js makes it (32 hex digits), or any such word of 16 characters or more
# (\Z: `$` would let a newline through).
TURN_KEY_PATTERN = rf"[0-9A-Za-z_-]{{16,{TURN_KEY_LENGTH}}}\Z"

# WTForms' own message for IntegerField, translated by WTForms' catalogue; held in a name
# so that pybabel does not extract it into ours.
NOT_AN_INTEGER = "Not a valid integer value."


class WholeNumberField(IntegerField):
    """A number field read like every number of the app (`read_whole`): ASCII digits only,
    and never so long that int() fails on it."""

    def process_formdata(self, valuelist: list) -> None:
        if not valuelist:
            return
        self.data = read_whole(valuelist[0], MAX_DATABASE_ID)
        if self.data is None:
            raise ValueError(self.gettext(NOT_AN_INTEGER))


class Form(FlaskForm):
    """Every form of the app: Flask-WTF's, with WTForms' own messages read from a catalogue
    parsed once per language (Flask-WTF parses it again on every request, a millisecond)."""

    class Meta:
        def get_translations(self, form) -> Translations:
            return _wtforms_catalogue(str(get_locale()))


class ActionForm(Form):
    """A confirmation: a button and the CSRF token, nothing else."""

    submit = SubmitField(_l("Valider"))


class PlayersAndPresetForm(Form):
    """The new-game form without its house rules, which ``new_game_form_class`` adds."""

    names = FieldList(
        StringField(
            _l("Nom"),
            validators=[Optional(), Length(max=MAX_NAME_LENGTH)],
            filters=[lambda value: value.strip() if isinstance(value, str) else value],
        ),
        # More fields than players are read, so that an 11th name is refused with a message
        # instead of being dropped without a word.
        min_entries=MAX_PLAYERS,
        max_entries=2 * MAX_PLAYERS,
    )
    # The household's players ticked among the chips, seated after the names typed: with
    # scripts, a tick types the name in the first free line instead (static/js/new_game.js).
    known = FieldList(
        StringField(validators=[Optional(), Length(max=MAX_NAME_LENGTH)]),
        max_entries=2 * MAX_PLAYERS,
    )
    preset = RadioField(_l("Règles"), choices=PRESET_CHOICES, default="classique")
    submit = SubmitField(_l("Commencer la partie"))


def _option_field(option: Option) -> BooleanField | SelectField:
    """The new-game form's field for a house rule, from its description."""
    if option.is_flag:
        return BooleanField(_l(option.label), default=option.default)
    return SelectField(
        _l(option.label),
        default=option.default,
        coerce=type(option.default),
        choices=[SelectChoice(choice.value, _l(choice.text)) for choice in option.choices],
    )


def new_game_form_class(options: tuple[Option, ...] = OPTIONS) -> type[Form]:
    """The new-game form with a field for each house rule and one for the Yams sec column."""
    fields = {option.name: _option_field(option) for option in (*options, SEC)}
    return type("NewGameForm", (PlayersAndPresetForm,), fields)


NewGameForm = new_game_form_class()


class EntryForm(Form):
    """A turn: the dice and the box tapped (``column:box``); ``seq`` is the sheet seen, and
    ``version`` that sheet's game version (GameVersion.token), which the write compares;
    ``turn_key`` the key the tablet made for the turn.

    ``add``, ``drop`` and ``clear`` are the keypad's buttons when scripts are off: a face to
    add, the position of a die to take back, or start the dice again.
    """

    dice = StringField(_l("Dés"), validators=[Length(max=40)])
    target = StringField(validators=[Length(max=40)])
    seq = WholeNumberField(validators=[InputRequired(), NumberRange(min=0, max=10_000)])
    version = HiddenField(validators=[InputRequired(), Length(max=VERSION_LENGTH)])
    confirm = HiddenField()
    # The sheet draws its buttons with their words (templates/games/sheet.html).
    preview = SubmitField()
    # A face, or two of one face (Maxi Yatzy's pair keys: six dice in five taps).
    add = StringField(validators=[Optional(), Regexp(r"^([1-6])\1?$")])
    drop = WholeNumberField(validators=[Optional(), NumberRange(min=0, max=40)])
    clear = SubmitField()
    # Asked for by the player only: the ranked boxes for these dice, or after the 1st or
    # 2nd throw the dice to keep (web/advice.py, which reads and checks ``throw``).
    advice = SubmitField()
    throw = StringField(validators=[Length(max=10)])
    # Generala: the dice came from the turn's first throw (servida), one tap on the sheet
    # where it changes the score; the entry then says throw 1.
    served = BooleanField()
    # Maxi Yatzy: the throws the turn used, one tap on the sheet; none said is the turn's
    # three. The rules say how many the player has (GameState.throws_at_hand).
    throws = WholeNumberField(validators=[Optional(), NumberRange(min=0, max=MAX_THROWS)])
    # The key sheet.js made for this turn: sent again after a dropped network, the same turn
    # finds the entry it wrote instead of a second one (play.play_turn). Absent without
    # scripts and from older pages.
    turn_key = HiddenField(validators=[Optional(strip_whitespace=False), Regexp(TURN_KEY_PATTERN)])


class RematchForm(Form):
    """The end of a game's « Revanche »: nothing to fill, the CSRF token is the form."""

    submit = SubmitField(_l("Revanche"))


class UndoForm(Form):
    """The undo of one entry: the one confirmed, at the game's ``version`` shown, and no
    other (a page seen again with Back, after another undo or entry, is refused)."""

    seq = WholeNumberField(validators=[InputRequired(), NumberRange(min=1, max=10_000)])
    version = HiddenField(validators=[InputRequired(), Length(max=VERSION_LENGTH)])
    submit = SubmitField(_l("Oui, annuler la dernière entrée"))
