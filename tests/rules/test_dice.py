import pytest

from scorekeeper.rules import RuleError, is_yams, parse_dice, yams_face


@pytest.mark.parametrize("text", ["66653", "6 6 6 5 3", "6,6,6,5,3", " 6, 6 ,6,5,3 ", "6-6-6-5-3"])
def test_accepted_spellings(text):
    assert parse_dice(text) == (6, 6, 6, 5, 3)


def test_list_of_integers():
    assert parse_dice([1, 2, 3, 4, 5]) == (1, 2, 3, 4, 5)


def test_six_dice_for_yams_6():
    assert parse_dice("666661", count=6) == (6, 6, 6, 6, 6, 1)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("6665", "Il faut 5 dés, vous en avez donné 4"),
        ("666531", "Il faut 5 dés, vous en avez donné 6"),
        ("66603", "« 0 » n'est pas un dé"),
        ("66673", "« 7 » n'est pas un dé"),
        ("abcde", "« abcde » n'est pas un dé"),
        ("6 6 x 5 3", "« x » n'est pas un dé"),
        ("", "Tapez les dés"),
        ("   ", "Tapez les dés"),
        ("١٢٣٤٥", "n'est pas un dé"),  # Arabic-Indic digits are decimal but not dice
        (None, "Tapez les dés"),
        ([1, 2, 3, 4, True], "n'est pas un dé"),
        ([1, 2, 3, 4, 7], "« 7 » n'est pas un dé"),
    ],
)
def test_bad_dice_say_what_to_fix(text, fragment):
    with pytest.raises(RuleError) as caught:
        parse_dice(text)
    assert fragment in str(caught.value)


def test_yams_face():
    assert yams_face((4, 4, 4, 4, 4)) == 4
    assert yams_face((4, 4, 4, 4, 1)) is None
    assert yams_face((2, 2, 2, 2, 2, 5)) == 2
    assert is_yams((3, 3, 3, 3, 3))
    assert not is_yams((1, 2, 3, 4, 5, 6))
