"""Whole numbers read from text (URLs, query strings, forms): one reader for all of them."""

# Enough for any number the app reads (the largest, a database id, has 10 digits), and
# short enough that int() never meets its limit on long strings (a ValueError past 4,300).
MAX_DIGITS = 10


def read_whole(text: object, most: int) -> int | None:
    """The number from 0 to ``most`` that ``text`` writes in ASCII digits, else None.

    Other digits ("²", "①", "١") are refused: ``str.isdigit()`` accepts some that ``int()``
    refuses, ``int()`` accepts some that nobody types on a tablet, and the number a URL or
    a form carries must mean one thing everywhere.
    """
    if not (
        isinstance(text, str) and 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()
    ):
        return None
    value = int(text)
    return value if value <= most else None
