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
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from scorekeeper.rules.game import MAX_NAME_LENGTH, MAX_PLAYERS

PRESET_CHOICES = [
    SelectChoice("classique", _l("Classique : une colonne libre, 13 tours")),
    SelectChoice("triple", _l("Triple : colonnes descendante, montante et libre, 39 tours")),
    SelectChoice("yatzy", _l("Yatzy scandinave : 15 cases, prime de 50, sans joker")),
]


@functools.cache
def _wtforms_catalogue(locale: str) -> Translations:
    return Translations.load(messages_path(), [locale], domain="wtforms")


class Form(FlaskForm):
    """Every form of the app: Flask-WTF's, with WTForms' own messages read from a catalogue
    parsed once per language (Flask-WTF parses it again on every request, a millisecond)."""

    class Meta:
        def get_translations(self, form) -> Translations:
            return _wtforms_catalogue(str(get_locale()))


class NewGameForm(Form):
    names = FieldList(
        StringField(_l("Nom"), validators=[Optional(), Length(max=MAX_NAME_LENGTH)],
                    filters=[lambda value: value.strip() if isinstance(value, str) else value]),
        # More fields than players are read, so that an 11th name is refused with a message
        # instead of being dropped without a word.
        min_entries=MAX_PLAYERS, max_entries=2 * MAX_PLAYERS,
    )
    preset = RadioField(_l("Règles"), choices=PRESET_CHOICES, default="classique")
    vache = BooleanField(_l("Règle de la vache : sur une ligne, on ne peut pas marquer moins "
                            "que le meilleur score déjà inscrit par un autre joueur"))
    four_kind = SelectField(_l("Carré"), default="sum", choices=[
        SelectChoice("sum", _l("somme des 5 dés")), SelectChoice("fixed40", _l("40 fixes")),
        SelectChoice("base", _l("20 + les quatre dés")),
        SelectChoice("matching", _l("les quatre dés identiques seulement (4 × la face)"))])
    three_kind = SelectField(_l("Brelan"), default="sum", choices=[
        SelectChoice("sum", _l("somme des 5 dés")), SelectChoice("base", _l("10 + les trois dés")),
        SelectChoice("matching", _l("les trois dés identiques seulement (3 × la face)"))])
    full_house = SelectField(_l("Full"), default="fixed25", choices=[
        SelectChoice("fixed25", _l("25 fixes")),
        SelectChoice("base", _l("10 + la somme des 5 dés")),
    ])
    joker = SelectField(_l("Joker"), default="official", choices=[
        SelectChoice("official", _l("officiel : le Yams va d'abord dans sa case du haut")),
        SelectChoice("free", _l("libre : le Yams va où l'on veut"))])
    yams_bonus = BooleanField(_l("Prime Yams : +100 pour chaque Yams quand la case Yams "
                                 "vaut déjà 50"), default=True)
    plus_minus = BooleanField(_l("Plus et Moins à la place de la Chance : le Plus doit finir "
                                 "au-dessus du Moins"))
    sec = BooleanField(_l("Colonne Yams sec en plus : un seul lancer par tour"))
    dice = SelectField(_l("Dés"), default="5", choices=[
        SelectChoice("5", _l("5 dés")),
        SelectChoice("6", _l("6 dés (Yams 6 : chaque case compte ses 5 meilleurs)")),
    ])
    submit = SubmitField(_l("Commencer la partie"))


class EntryForm(Form):
    """A turn: the dice and the box tapped (``column:box``); ``seq`` is the sheet seen.

    ``add``, ``drop`` and ``clear`` are the keypad's buttons when scripts are off: a face to
    add, the position of a die to take back, or start the dice again.
    """

    dice = StringField(_l("Dés"), validators=[Length(max=40)])
    target = StringField(validators=[Length(max=40)])
    seq = IntegerField(validators=[InputRequired(), NumberRange(min=0, max=10_000)])
    confirm = HiddenField()
    preview = SubmitField(_l("Voir les scores"))
    add = IntegerField(validators=[Optional(), NumberRange(min=1, max=6)])
    drop = IntegerField(validators=[Optional(), NumberRange(min=0, max=40)])
    clear = SubmitField(_l("Effacer"))
    # Asked for by the player only: the ranked boxes for these dice (web/advice.py).
    advice = SubmitField(_l("Conseil"))


class UndoForm(Form):
    seq = IntegerField(validators=[InputRequired(), NumberRange(min=1, max=10_000)])
    submit = SubmitField(_l("Oui, annuler la dernière entrée"))
