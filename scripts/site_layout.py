"""How a docs page is laid out in the browser: what reaches past the page, which terminal blocks wrap, and what a
lesson shows on its first screen.

    from site_layout import layout_problems, loaded_problems
    problems = layout_problems(urls, browser, lessons={url, ...})   # {url: [one line per problem]}, a load each
    found = loaded_problems(browser, lesson=True)   # the page the browser just loaded at FIRST_SCREEN (check_site)
"""

import json

PROSE = "p, li, h1, h2, h3, h4, h5, blockquote, img"
# A terminal block (pre) may scroll sideways inside itself, as a terminal would; nothing else may.
EVERYTHING = PROSE + ", table, .md-typeset__scrollwrap, pre"
# (width, height, what must fit) of each layout checked
LAYOUTS = ((1280, 900, EVERYTHING), (390, 800, PROSE))
FIRST_SCREEN = (1280, 900)
FIGURE_BY = 1350   # px: the top of a lesson's first figure is within the first screen and a half
DARK = 0.1   # the most relative luminance an answer's text may have, over white: Material's body text is about 0.02
ANSWER_TITLE = "What this run answers"

# The visible elements matching SELECTOR that reach past the content box, or scroll sideways themselves; a terminal
# block (pre) only when its box reaches past, since its lines scroll inside it.
OVERFLOW = """(() => {
  const box = document.querySelector('.md-content__inner') || document.body;
  // A few pixels of slack: inline code's own padding may spill that far at the end of a line, and nothing scrolls.
  const slack = 4, right = box.getBoundingClientRect().right + slack, found = [];
  const name = el => el.tagName.toLowerCase() + ' '
    + (el.textContent || el.getAttribute('src') || '').trim().slice(0, 50);
  const shown = el => !el.closest('details:not([open])') && el.getClientRects().length;
  for (const el of box.querySelectorAll(SELECTOR)) {
    const terminal = el.tagName === 'PRE';
    if (!shown(el) || (!terminal && el.closest('pre'))) continue;
    // A block's content wider than its box scrolls (overflow auto) or spills past it; inline boxes have no width.
    const wider = !terminal && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + slack;
    if (el.getBoundingClientRect().right > right || wider) found.push(name(el));
  }
  return found;
})()"""
# The terminal blocks whose lines wrap: each is laid out again with its lines kept (white-space: pre), and a block
# that is then shorter had wrapped. Folded blocks are unfolded first, so that the whole output is checked too.
WRAPPED = """(() => {
  for (const details of document.querySelectorAll('details')) details.open = true;
  const found = [];
  for (const code of document.querySelectorAll('pre > code, pre:not(:has(> code))')) {
    const height = code.getBoundingClientRect().height, style = code.style.whiteSpace;
    code.style.whiteSpace = 'pre';
    const kept = code.getBoundingClientRect().height;
    code.style.whiteSpace = style;
    if (height > kept + 1) found.push((code.textContent || '').trim().split('\\n')[0].slice(0, 60));
  }
  return found;
})()"""
# The table cells that split one word (no whitespace in it) over two or more lines: "19" as "1" and "9". A header
# is a label, and may break at its hyphens.
SPLIT = """(() => {
  const found = [], cells = document.querySelectorAll('.md-content__inner td');
  for (const cell of cells) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const word = node.textContent.trim();
      if (!word || /\\s/.test(word)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      if (range.getClientRects().length > 1) found.push(word.slice(0, 40));
    }
  }
  return found;
})()"""
# Where a lesson's answer and first figure are, and how dark the answer's text is.
LESSON = """(() => {
  const box = document.querySelector('.md-content__inner') || document.body;
  const answer = [...box.querySelectorAll('.admonition, details, blockquote')]
    .find(el => (el.textContent || '').trim().startsWith(TITLE) || el.querySelector(':scope > .admonition-title, '
      + ':scope > summary, :scope > p > strong')?.textContent.trim() === TITLE);
  const figure = box.querySelector('img');
  const top = el => el.getBoundingClientRect().top + window.scrollY;
  if (!answer) return {figure: figure ? top(figure) : null};
  const text = answer.querySelector(':scope > p:not(.admonition-title)') || answer;
  const [r, g, b, a = 1] = getComputedStyle(text).color.match(/[\\d.]+/g).map(Number);
  const channel = c => {   // sRGB to linear, the text's alpha blended over white
    c = (a * c + (1 - a) * 255) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return {kind: answer.tagName.toLowerCase() === 'blockquote' ? 'a quote' : 'an admonition',
          top: top(answer), bottom: top(answer) + answer.getBoundingClientRect().height,
          luminance: 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b),
          figure: figure ? top(figure) : null};
})()"""


def _load(browser, url, width, height):
    """Lay the page at URL out at width x height."""
    browser.viewport(width, height)
    browser.dom(url)


def _overflowing(browser, width, selector):
    """What the loaded page shows wider than its content box, one line each."""
    found = browser.evaluate(OVERFLOW.replace("SELECTOR", json.dumps(selector)))
    return [f"at {width}px, needs horizontal scrolling: {what!r}" for what in dict.fromkeys(found or ())]


def _splitting(browser, width):
    """The loaded page's table cells that split a word over lines, one line each."""
    return [f"at {width}px, a table cell splits {word!r} over lines"
            for word in dict.fromkeys(browser.evaluate(SPLIT) or ())]


def _wrapping(browser, width):
    """The loaded page's terminal blocks whose lines wrap, one line each; it unfolds every <details> to see them."""
    return [f"at {width}px, a terminal block wraps its lines: {first!r}"
            for first in dict.fromkeys(browser.evaluate(WRAPPED) or ())]


def overflow_problems(browser, url, width, height, selector):
    """What the page at URL, laid out at width x height, shows wider than its content box, one line each."""
    _load(browser, url, width, height)
    return _overflowing(browser, width, selector)


def wrapped_problems(browser, url, width, height):
    """The terminal blocks of the page at URL, laid out at width x height, whose lines wrap, one line each."""
    _load(browser, url, width, height)
    return _wrapping(browser, width)


def split_problems(browser, url, width, height):
    """The table cells of the page at URL, laid out at width x height, that split a word over lines, one line each."""
    _load(browser, url, width, height)
    return _splitting(browser, width)


def lesson_problems(browser, url):
    """What the lesson at URL lacks on its first screen: its answer, in dark text in an admonition, and its figure."""
    _load(browser, url, *FIRST_SCREEN)
    return _first_screen(browser)


def _first_screen(browser):
    """What the loaded lesson, laid out at the first screen's size, lacks on its first screen."""
    width, height = FIRST_SCREEN
    seen = browser.evaluate(LESSON.replace("TITLE", json.dumps(ANSWER_TITLE))) or {}
    problems = []
    if "kind" not in seen:
        problems.append(f"the lesson shows no answer titled {ANSWER_TITLE!r}")
    else:
        if seen["kind"] != "an admonition":
            problems.append(f"the answer is in {seen['kind']}, not an admonition")
        if seen["bottom"] > height:
            problems.append(f"the answer ends at {seen['bottom']:.0f} px, below the first screen ({height} px)")
        if seen["luminance"] > DARK:
            problems.append(f"the answer's text is pale (relative luminance {seen['luminance']:.2f}, at most {DARK})")
    if seen.get("figure") is None:
        problems.append("the lesson shows no figure")
    elif seen["figure"] > FIGURE_BY:
        problems.append(f"the first figure's top is at {seen['figure']:.0f} px, below {FIGURE_BY} px (the first screen "
                        "and a half)")
    return [f"at {width}x{height}: {problem}" for problem in problems]


def loaded_problems(browser, lesson=False):
    """Every layout's problems of the page just loaded at the first screen's size, and a lesson's first screen: the
    window is resized for each other layout, as a reader's would be, not the page loaded again."""
    found = _first_screen(browser) if lesson else []
    for width, height, selector in LAYOUTS:
        browser.viewport(width, height)
        found += _overflowing(browser, width, selector)
        found += _splitting(browser, width) if width == FIRST_SCREEN[0] else []
    # Last: unfolding the <details> changes the page.
    for width, height, _ in LAYOUTS:
        browser.viewport(width, height)
        found += _wrapping(browser, width)
    browser.viewport(*FIRST_SCREEN)
    return found


def layout_problems(urls, browser, lessons=()):
    """{url: problems} of every layout in LAYOUTS, and of the first screen of each url in LESSONS, a load each."""
    problems = {}
    for url in urls:
        _load(browser, url, *FIRST_SCREEN)
        problems[url] = loaded_problems(browser, url in lessons)
    return problems
