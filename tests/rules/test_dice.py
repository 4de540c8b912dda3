import pytest

from scorekeeper.rules import is_yams, parse_dice, yams_face
from scorekeeper.rules.dice import (
    DICE_SENTENCES,
    NO_DICE,
    NOT_A_DIGIT,
    NOT_A_FACE,
    TOO_FEW,
    TOO_MANY,
    DiceError,
)


@pytest.mark.parametrize("text", ["66653", "6 6 6 5 3", "6,6,6,5,3", " 6, 6 ,6,5,3 ", "6-6-6-5-3"])
def test_accepted_spellings(text):
    assert parse_dice(text) == (6, 6, 6, 5, 3)


def test_list_of_integers():
    assert parse_dice([1, 2, 3, 4, 5]) == (1, 2, 3, 4, 5)


def test_six_dice_for_yams_6():
    assert parse_dice("666661", count=6) == (6, 6, 6, 6, 6, 1)


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        ("77777", NOT_A_FACE, "« 7 » n'est pas un dé : un dé va de 1 à 6."),
        ("66603", NOT_A_FACE, "« 0 » n'est pas un dé : un dé va de 1 à 6."),
        ("16 2 3 4 5", NOT_A_FACE, "« 16 » n'est pas un dé : un dé va de 1 à 6."),
        ([1, 2, 3, 4, 7], NOT_A_FACE, "« 7 » n'est pas un dé : un dé va de 1 à 6."),
        ([1, 2, 3, 4, True], NOT_A_FACE, "« True » n'est pas un dé : un dé va de 1 à 6."),
        ("abc", NOT_A_DIGIT, "« abc » n'est pas un chiffre : tapez les dés de 1 à 6."),
        ("6 6 x 5 3", NOT_A_DIGIT, "« x » n'est pas un chiffre : tapez les dés de 1 à 6."),
        # Arabic-Indic digits are decimal but not dice.
        ("١٢٣٤٥", NOT_A_DIGIT, "« ١ » n'est pas un chiffre : tapez les dés de 1 à 6."),
        ("666666", TOO_MANY, "Trop de dés : il en faut 5, pas 6."),
        ("6 6 6 5 3 1 1", TOO_MANY, "Trop de dés : il en faut 5, pas 7."),
        ("666", TOO_FEW, "Pas assez de dés : il en faut 5, pas 3."),
        ("6", TOO_FEW, "Pas assez de dés : il en faut 5, pas 1."),
        ("", NO_DICE, "Tapez les dés : 5 chiffres de 1 à 6."),
        ("   ", NO_DICE, "Tapez les dés : 5 chiffres de 1 à 6."),
        (None, NO_DICE, "Tapez les dés : 5 chiffres de 1 à 6."),
    ],
)
def test_each_wrong_throw_has_its_own_sentence(text, kind, message):
    with pytest.raises(DiceError) as caught:
        parse_dice(text)
    assert caught.value.kind == kind
    assert str(caught.value) == message
    assert caught.value.template == DICE_SENTENCES[kind]


def test_a_face_is_checked_before_the_count():
    """« 6667777 » shows a wrong face before too many dice: the page says the same."""
    with pytest.raises(DiceError) as caught:
        parse_dice("6667777")
    assert caught.value.kind == NOT_A_FACE


def test_too_many_and_too_few_for_six_dice():
    with pytest.raises(DiceError, match="^Pas assez de dés : il en faut 6, pas 5.$"):
        parse_dice("66666", count=6)
    with pytest.raises(DiceError, match="^Trop de dés : il en faut 6, pas 7.$"):
        parse_dice("6666666", count=6)


def test_every_kind_has_a_sentence_of_its_own():
    sentences = list(DICE_SENTENCES.values())
    assert len(set(sentences)) == len(sentences) == 5


def test_yams_face():
    assert yams_face((4, 4, 4, 4, 4)) == 4
    assert yams_face((4, 4, 4, 4, 1)) is None
    assert yams_face((2, 2, 2, 2, 2, 5)) == 2
    assert is_yams((3, 3, 3, 3, 3))
    assert not is_yams((1, 2, 3, 4, 5, 6))
