"""Turns played as at the table, each tap waiting for the state the page announces (sheet.js
marks the turn's form; docs/development.md, "Tests that never fail by chance")."""

from contextlib import contextmanager

from playwright.sync_api import expect

# The turn's form, as sheet.js marks it once it listens: aria-busy while a preview of the
# dice typed is on its way, data-previewed the dice the previews shown were drawn for.
TURN_FORM = "form[data-turn-url]"


def turn_ready(page, dice=None):
    """Wait until the page's script listens and no preview is on its way; with ``dice``, until
    the previews shown are those of these dice."""
    selector = f'{TURN_FORM}[aria-busy="false"]'
    if dice is not None:
        selector += f'[data-previewed="{dice}"]'
    expect(page.locator(selector)).to_have_count(1)


def turn_settled(page):
    """Wait until the previews shown are those of the dice in the field: a box tapped now is
    judged on them."""
    turn_ready(page, page.locator("#dice").input_value())


def tap_dice(page, dice):
    """Tap the keypad's faces with a finger, one touch per die, each seen in the dice field
    before the next; then wait for the preview of the dice."""
    turn_ready(page)
    field = page.locator("#dice")
    typed = field.input_value()
    for face in dice:
        # Tapped once attached, visible, still and receiving events.
        page.locator(f'.keypad button[name="add"][value="{face}"]').tap()
        typed += face
        expect(field).to_have_value(typed)
    turn_ready(page, typed)


class CountedTaps:
    """The finger on the tablet, each tap counted: a rule set's usual turn is held to its
    number of taps."""

    def __init__(self, page):
        self.page = page
        self.count = 0

    def keys(self, keys, dice=None):
        """The keypad's keys, each a face or (six dice) a pair « 66 », then wait for the
        previews of the dice they make (``dice``; the keys joined by default)."""
        dice = "".join(keys) if dice is None else dice
        turn_ready(self.page)
        for key in keys:
            self.tap(self.page.locator(f'.keypad button[name="add"][value="{key}"]'))
        expect(self.page.locator("#dice")).to_have_value(dice)
        turn_ready(self.page, dice)

    def tap(self, locator):
        locator.tap()
        self.count += 1


def tap_dice_without_scripts(page, dice):
    """Each tap is a form submitted and a page loaded: wait for it before the next tap."""
    for face in dice:
        with page.expect_navigation():
            page.get_by_role("button", name=f"Ajouter un {face}").click()


def tap_box(page, label):
    """Tap a box once its preview shows ("Six, 18 points possibles"): a box that scores is
    written, one the dice would bar opens the confirmation bar."""
    turn_settled(page)
    page.locator(f'button[name="target"][aria-label^="{label}, "]').click()


@contextmanager
def next_sheet(page):
    """Wait for the sheet that follows a confirmed turn (or the ranking after the last one),
    swapped into the page by sheet.js: no page load, and no new address when it is the same."""
    page.evaluate("""() => {
      window.sheetSwapped = false;
      document.addEventListener("sheet:swapped", () => { window.sheetSwapped = true; },
                                { once: true });
    }""")
    yield
    page.wait_for_function("() => window.sheetSwapped")


def confirm(page):
    with next_sheet(page):
        page.locator("[data-confirm]").click()


def write_box(page, label):
    """Write the turn in the box: one tap when it scores, and its confirmation when barred."""
    turn_settled(page)
    box = page.locator(f'button[name="target"][aria-label^="{label}, "]')
    barred = box.get_attribute("aria-label").endswith("barrée à 0")
    with next_sheet(page):
        box.click()
        if barred:
            page.locator("[data-confirm]").click()


class Finger:
    """Taps by touch what it is given, once it is attached, visible, still and receiving
    events, and counts the taps."""

    def __init__(self, page):
        self.page = page
        self.taps = 0

    def tap(self, locator):
        locator.tap()
        self.taps += 1

    def dice(self, dice):
        """The keypad's faces, each tap seen in the dice field before the next."""
        tap_dice(self.page, dice)
        self.taps += len(dice)

    def key(self, face):
        """A key of a full tray's keypad: aria-disabled, which Playwright's tap would wait to
        see gone, yet a tap on it must say why. So the tap is forced, once the key is visible
        and no preview is on its way to move it."""
        turn_ready(self.page)
        key = self.page.locator(f'.keypad button[name="add"][value="{face}"]')
        expect(key).to_have_attribute("aria-disabled", "true")
        key.tap(force=True)
        self.taps += 1


def scoring_box(page, label):
    """A box once the server's preview of the dice shows it scoring (waiting is no tap)."""
    box = page.locator(f'button.preview[aria-label^="{label}, "]')
    box.wait_for()
    return box
