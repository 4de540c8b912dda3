"""What every page must hold, measured in the browser: targets, names, contrast, no overflow."""

# A box of a sheet shown whole gets the height its row has on this screen (28 px and more at
# the smallest tablet, in Triple): 44 px across, and never under WCAG's 24 px.
WHOLE_SHEET_BOX = ".sheet-whole .box-btn"
WHOLE_SHEET_BOX_HEIGHT = 28


# Buttons, links styled as buttons, inputs: each a target a thumb can hit. A checkbox or a
# radio is hit through its whole label.
TARGETS = f"""() => [...document.querySelectorAll(
    'main button, main .btn, main input:not([type=hidden]), main select, main .score-chip a,'
    + ' .site-header a, .site-header button, .site-header summary')]
  .filter((el) => el.offsetParent !== null && !el.closest('.visually-hidden'))
  .map((el) => {{ const box = (el.closest('label') || el).getBoundingClientRect();
                 return [el.outerHTML.slice(0, 90), box.width, box.height,
                         el.matches('{WHOLE_SHEET_BOX}')]; }})"""

# Every control and its accessible name, as far as markup gives it.
CONTROLS = """() => [...document.querySelectorAll(
    'button, a[href], input:not([type=hidden]), select')].map((el) => {
    const labelled = (el.getAttribute('aria-labelledby') || '').split(' ').filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent || '').join(' ');
    const labels = [...(el.labels || [])].map((label) => label.textContent).join(' ');
    const name = el.getAttribute('aria-label') || labelled || labels || el.textContent
      || el.getAttribute('title') || el.getAttribute('value') || '';
    return [el.outerHTML.slice(0, 90), name.trim()];
  })"""

# Each visible text and the colours it is drawn in: its own, and the backgrounds behind it
# blended down to the first opaque one (a text on a patterned background is left to the eye).
TEXTS = """() => {
  const backdrop = (el) => {
    const layers = [];
    for (; el; el = el.parentElement) {
      const style = getComputedStyle(el);
      if (style.backgroundImage !== 'none') return null;
      const [red, green, blue, alpha = 1] = style.backgroundColor.match(/[\\d.]+/g).map(Number);
      if (alpha > 0) layers.push([red, green, blue, alpha]);
      if (alpha === 1) break;
    }
    let mixed = [255, 255, 255];
    for (const [red, green, blue, alpha] of layers.reverse()) {
      mixed = [red, green, blue].map((value, i) => value * alpha + mixed[i] * (1 - alpha));
    }
    return `rgb(${mixed.map(Math.round).join(', ')})`;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const found = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || el.closest('.visually-hidden, [hidden], svg')) continue;
    const style = getComputedStyle(el);
    const shown = el.offsetParent !== null && style.visibility !== 'hidden';
    if (!shown || style.opacity !== '1') continue;
    const bg = backdrop(el);
    if (bg) found.push([node.textContent.trim().slice(0, 40), style.color, bg,
                        parseFloat(style.fontSize), parseInt(style.fontWeight, 10)]);
  }
  return found;
}"""


def _luminance(rgb: str) -> float:
    red, green, blue = (int(part) / 255 for part in rgb[rgb.index("(") + 1 : -1].split(",")[:3])
    linear = [
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(foreground: str, background: str) -> float:
    lighter, darker = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def small_targets(page, least=44):
    """Targets under 44 px, but the boxes of a whole sheet only when under 44 x 28 px."""
    small = []
    for html, w, h, whole_box in page.evaluate(TARGETS):
        tall_enough = WHOLE_SHEET_BOX_HEIGHT if whole_box else least
        if w < least - 0.5 or h < tall_enough - 0.5:
            small.append((html, round(w), round(h)))
    return small


def unnamed_controls(page):
    return [html for html, name in page.evaluate(CONTROLS) if not name]


def low_contrast_texts(page):
    """Texts under WCAG AA: 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold)."""
    failing = []
    for text, color, background, size, weight in page.evaluate(TEXTS):
        large = size >= 24 or (size >= 18.66 and weight >= 700)
        ratio = contrast(color, background)
        if ratio < (3 if large else 4.5):
            failing.append((text, color, background, round(ratio, 2)))
    return failing


def page_overflow(page):
    """How far the page itself scrolls sideways (the sheet scrolls in its own pane)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def check_page(page, artifacts, name):
    """The page saved to look at, then checked: no sideways scroll, targets of 44 px, every
    control named, every text contrasted."""
    page.screenshot(path=artifacts / f"{name}.png", full_page=True)
    assert page_overflow(page) <= 0, name
    assert small_targets(page) == [], name
    assert unnamed_controls(page) == [], name
    assert low_contrast_texts(page) == [], name


WCAG_21_AA = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}


def violations(axe, page):
    results = axe.run(page, options=WCAG_21_AA).response["violations"]
    return [
        (found["id"], found["help"], [node["target"] for node in found["nodes"]][:3])
        for found in results
    ]
