"""The one exception the rules raise, carrying a message the upper layers can translate."""

from collections.abc import Callable, Mapping

from scorekeeper.rules.labels import (
    BOX_LABELS,
    COLUMN_LABELS,
    PRESET_LABELS,
    box_name,
)

# Parameters holding a box, column or preset key are shown by their label, translated like
# the message itself; every other parameter is shown as it is (a player's name, a number).
# ``yams`` names the box of five alike (Rules.five_alike_box) for the game's word: « ce
# Kniffel ».
_BOX_PARAMS = {"box", "next_box", "forced_box", "yams"}
_COLUMN_PARAMS = {"column"}
_PRESET_PARAMS = {"preset"}


def _identity(text: str) -> str:
    return text


class RuleError(ValueError):
    """Something the rules do not allow: bad dice, a box out of turn, an unknown option.

    ``template`` is a French sentence marked for translation, with ``{name}`` fields filled
    from ``params``. ``str(error)`` gives the French message.
    """

    def __init__(
        self, template: str, box_labels: Mapping[str, str] = BOX_LABELS, **params: object
    ) -> None:
        super().__init__(template)
        self.template = template
        self.params = params
        # A game's own names for its boxes: Yatzy's last box is "Yatzy", not "Yams".
        self.box_labels = box_labels

    def render(self, translate: Callable[[str], str] = _identity) -> str:
        """The message in the language ``translate`` gives (French by default)."""
        shown = {}
        for name, value in self.params.items():
            if name in _BOX_PARAMS and value in self.box_labels:
                value = box_name(self.box_labels, value, translate)
            elif name in _COLUMN_PARAMS and value in COLUMN_LABELS:
                value = translate(COLUMN_LABELS[value])
            elif name in _PRESET_PARAMS and value in PRESET_LABELS:
                value = translate(PRESET_LABELS[value])
            shown[name] = value
        return translate(self.template).format(**shown)

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self):
        # An import is checked in a worker process, and its errors read in the server's:
        # the error, its subclass and its fields come back whole (box labels as a dict, the
        # game's own words kept as such).
        kept = dict(self.box_labels)
        return _restore, (type(self), self.args, {**self.__dict__, "box_labels": kept})


def _restore(kind: type[RuleError], args: tuple, fields: dict) -> RuleError:
    error = kind.__new__(kind, *args)
    error.args = args
    error.__dict__.update(fields)
    return error
