"""The docs site renders in a real headless browser: every page's tables and code blocks, no broken link."""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import check_site  # noqa: E402  (scripts/ is not a package)
import site_layout  # noqa: E402
from headless_chromium import Browser, find_browser  # noqa: E402

needs_browser = pytest.mark.skipif(find_browser() is None, reason="no Chromium found (apt-get install chromium, or "
                                   "set $CHROMIUM), so the site cannot be opened in a browser")

MARKDOWN = "Intro.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```console\n$ tfgraphs compare\nSizes\n```\n"
INDEX = ('<h1 id="top">t</h1><a href="other.html#there">ok</a> <a href="missing.html">gone</a> '
         '<a href="other.html#nope">x</a> <img src="missing.png"> <a href="#top">self</a> <a href="#gone">x</a> '
         '<a href="https://example.invalid/page">out</a> <a href="mailto:a@example.invalid">mail</a>')
SCRIPTED = ("<html><body><p>static</p><script>document.body.insertAdjacentHTML('beforeend', "
            "'<table><tr><td>made by a script</td></tr></table>'); undefinedFunction();</script></body></html>")


def labs_hook():
    """The site's hook that adds the lab sheets, loaded from docs/hooks/."""
    spec = importlib.util.spec_from_file_location("labs_hook", ROOT / "docs" / "hooks" / "labs.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    return hook


@pytest.fixture
def serve(tmp_path):
    """serve({name: html}) writes the files to a temporary folder and serves it; returns the base url."""
    servers = []

    def start(files):
        for name, html in files.items():
            (tmp_path / name).write_text(html)
        server, base = check_site.serve(tmp_path)
        servers.append(server)
        return base
    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium for the tests of what it shows."""
    if find_browser() is None:
        pytest.skip("no Chromium found")
    opened = Browser(find_browser(), tmp_path_factory.mktemp("browser") / "profile")
    yield opened
    opened.close()


def api_entries(text):
    """[(python path, heading)] of every `::: path` directive on the API page, the heading option if set, and of
    every `<!-- function: NAME -->` marker (a command's function, made by the registry)."""
    entries = [(f"tfgraphs.api.commands.{name}", f"tfgraphs.{name}")
               for name in re.findall(r"^<!-- function: (\w+) -->$", text, re.M)]
    for block in re.split(r"^(?=::: )", text, flags=re.M)[1:]:
        path = block.split()[1]
        heading = re.search(r"^ +heading: *(\S+)", block, re.M)
        entries.append((path, heading.group(1) if heading else path))
    return entries


def api_page_problems(text, names):
    """What the API page TEXT gets wrong about the public NAMES: one missing, one extra or twice, one misnamed."""
    entries = api_entries(text)
    headings = [heading for _, heading in entries]
    public = [f"tfgraphs.{name}" for name in names if not name.startswith("_")]
    problems = [f"{name} has no entry" for name in public if name not in headings]
    problems += [f"{heading} is not public" for heading in headings if heading not in public]
    problems += [f"{heading} has {headings.count(heading)} entries" for heading in dict.fromkeys(headings)
                 if headings.count(heading) > 1]
    return problems + [f"{heading} documents {path}" for path, heading in entries
                       if path.rsplit(".", 1)[1] != heading.rsplit(".", 1)[1]]


def test_the_api_page_documents_every_public_name_once():
    import tfgraphs
    problems = api_page_problems((ROOT / "docs" / "api.md").read_text(), tfgraphs.__all__)
    assert problems == [], ("docs/api.md: each public NAME needs one '::: module.NAME' directive with the option "
                            f"'heading: tfgraphs.NAME', or a command's '<!-- function: NAME -->': {problems}")


def test_the_api_page_check_notices_missing_extra_and_misnamed_entries():
    text = ("::: tfgraphs.errors.UsageError\n    options:\n      heading: tfgraphs.UsageError\n\n"
            "::: tfgraphs.api.compare.explain\n    options:\n      heading: tfgraphs.compare\n\n::: tfgraphs.old\n")
    assert api_page_problems(text, ["UsageError", "compare", "sweep", "__version__"]) == [
        "tfgraphs.sweep has no entry", "tfgraphs.old is not public",
        "tfgraphs.compare documents tfgraphs.api.compare.explain"]


def test_links_between_lessons_and_sheets_become_links_between_pages_and_others_are_refused():
    hook = labs_hook()
    docs, course, lab = ROOT / "docs", hook.SOURCE / "README.md", hook.SOURCE / "1-feed" / "README.md"
    assert hook.site_link("../../../docs/compare.md", course, "labs/README.md", docs) == "../compare.md"
    assert hook.site_link("../../../../docs/shapes.md", lab, "labs/1-feed/README.md", docs) == "../../shapes.md"
    assert hook.site_link("1-feed/README.md", course, "labs/README.md", docs) == "1-feed/README.md"
    assert hook.site_link("starter.py", lab, "labs/1-feed/README.md", docs) == "starter.py"
    assert hook.site_link("../../../../tests/lab_solutions/lab1.py", lab, "labs/1-feed/README.md", docs) is None
    assert hook.site_link("../../../docs/no-such-page.md", course, "labs/README.md", docs) is None
    lesson = docs / "compare.md"
    assert hook.site_link("../tfgraphs/labs/course/1-feed/README.md", lesson, "compare.md", docs) == \
        "labs/1-feed/README.md"
    assert hook.site_link("explain.md", lesson, "compare.md", docs) == "explain.md"
    assert hook.site_link("../tfgraphs/labs/course/9-none/README.md", lesson, "compare.md", docs) is None
    assert hook.site_link("../tests/test_site.py", lesson, "compare.md", docs) is None


def test_a_lab_page_links_the_files_shipped_with_it():
    hook = labs_hook()
    page = hook.with_downloads("# Lab 1\n\nText.\n", hook.SOURCE / "1-feed" / "README.md")
    title, blank, files, *_ = page.splitlines()
    assert (title, blank) == ("# Lab 1", "") and files.startswith("Files for this lab: ")
    assert "[`starter.py`](starter.py)" in files
    assert hook.with_downloads("# Labs\n", hook.SOURCE / "README.md") == "# Labs\n"


COPY = '<button class="md-code__button" data-md-type="copy"></button>'


def test_a_page_missing_its_table_code_block_or_copy_button_is_reported():
    shown = check_site.parse(f"<table><tr><td>1</td></tr></table><pre>{COPY}<code>$ tfgraphs compare\nSizes</code>"
                             "</pre>")
    assert check_site.content_problems(MARKDOWN, shown) == []
    bare = check_site.parse("<p>Intro.</p><pre><code>$ tfgraphs compare</code></pre>")
    assert check_site.content_problems(MARKDOWN, bare) == [
        "the markdown has 1 table(s), the page shows 0",
        "a code block is missing: '$ tfgraphs compare'",
        "1 code block(s), 0 copy button(s)",
    ]


def test_a_table_inside_a_code_block_needs_no_table_element():
    page = check_site.parse(f"<pre>{COPY}| a |\n|---|</pre>")
    assert check_site.content_problems("```\n| a |\n|---|\n```\n", page) == []


def test_a_page_missing_from_the_search_index_is_reported(tmp_path):
    (tmp_path / "search").mkdir()
    docs = [{"location": "", "title": "Home"}, {"location": "compare/#sizes", "title": "Sizes"}]
    (tmp_path / "search" / "search_index.json").write_text(json.dumps({"config": {}, "docs": docs}))
    pages = [("./", ""), ("compare/", ""), ("labs/1-feed/", "")]
    assert check_site.search_problems(tmp_path, pages) == ["the search index lacks labs/1-feed/"]


def test_broken_links_and_anchors_are_reported_and_external_ones_only_listed(serve):
    base = serve({"index.html": INDEX, "other.html": '<h2 id="there">there</h2>'})
    problems, external = check_site.link_problems(base + "index.html", check_site.parse(INDEX), check_site.fetcher({}))
    assert problems == ["missing.html -> HTTP 404", "other.html#nope -> no id 'nope' on /other.html",
                        "missing.png -> HTTP 404", "#gone -> no id 'gone' on /index.html"]
    assert external == ["https://example.invalid/page"]


@needs_browser
def test_the_browser_returns_the_dom_after_scripts_ran_and_their_errors(serve, browser):
    base = serve({"scripted.html": SCRIPTED})
    html, errors = browser.dom(base + "scripted.html")
    assert check_site.parse(SCRIPTED).tables == 0 and check_site.parse(html).tables == 1
    assert len(errors) == 1 and "undefinedFunction" in errors[0], errors


OVERFLOWING = ('<html><body><div class="md-content__inner" style="max-width:600px"><p>fits</p>'
               '<pre style="overflow-x:auto">' + "x" * 300 + '</pre><p>' + "y" * 200 + '</p>'
               '<pre style="width:900px">' + "w" * 60 + '</pre>'
               '<details><pre style="overflow-x:auto">' + "z" * 300 + '</pre></details></div></body></html>')
FITTING = ('<html><body><div class="md-content__inner" style="max-width:600px"><p>' + "word " * 200 + '</p>'
           '<pre style="overflow-x:auto">short</pre></div></body></html>')


@needs_browser
def test_a_page_that_needs_horizontal_scrolling_fails_the_layout_check(serve, browser):
    base = serve({"wide.html": OVERFLOWING, "fits.html": FITTING})
    wide = site_layout.overflow_problems(browser, base + "wide.html", 1280, 800, site_layout.EVERYTHING)
    phone = site_layout.overflow_problems(browser, base + "wide.html", 390, 800, site_layout.PROSE)
    fits = site_layout.layout_problems([base + "fits.html"], browser)
    # The unbreakable paragraph and the code block wider than the page; not the terminal block that scrolls inside
    # itself, nor the code folded away in a closed <details>.
    assert wide == [f"at 1280px, needs horizontal scrolling: {'p ' + 'y' * 50!r}",
                    f"at 1280px, needs horizontal scrolling: {'pre ' + 'w' * 50!r}"], wide
    assert phone == [f"at 390px, needs horizontal scrolling: {'p ' + 'y' * 50!r}"], phone
    assert fits == {base + "fits.html": []}


@needs_browser
def test_every_page_of_the_site_renders_in_the_browser(built_site):
    site, built = built_site
    assert built.returncode == 0, built.stderr
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_site.py"), "--built", str(site)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lessons = len(list((ROOT / "docs").glob("*.md")))
    labs = len([path for path in labs_hook().lab_files() if path.suffix == ".md"])
    checked = re.search(r"^(\d+) pages checked in \S+, 0 with problems; search index holds every page$", proc.stdout,
                        re.M)
    assert checked and int(checked.group(1)) == lessons + labs, proc.stdout
    assert re.search(r"^ok +/labs/1-feed/ ", proc.stdout, re.M) and re.search(r"^ok +/api/ ", proc.stdout, re.M)


WRAPPING = ('<html><body><div class="md-content__inner" style="max-width:600px">'
            '<pre><code style="white-space:pre-wrap;overflow-wrap:anywhere">' + "a" * 200 + '\nshort</code></pre>'
            '<details><pre><code style="white-space:pre-wrap">' + "b " * 200 + '</code></pre></details>'
            '<pre><code style="white-space:pre;overflow-x:auto">' + "c" * 200 + '</code></pre></div></body></html>')
TABLE = ('<html><body><div class="md-content__inner" style="max-width:600px"><table><tr><td style="width:8px;'
         'overflow-wrap:anywhere">19</td><td style="width:8px">1 9</td><td>fits</td></tr></table></div></body></html>')
ANSWER = "What this run answers"


def lesson_page(answer, above=0, figure_at=0):
    """A lesson page: ABOVE px of question, the answer in the ANSWER html, FIGURE_AT px more, then a figure."""
    return (f'<html><body style="margin:0"><div class="md-content__inner"><h1>Lesson</h1><div style="height:{above}px">'
            f'</div>{answer}<div style="height:{figure_at}px"></div><img src="data:image/gif;base64,R0lGODlhAQABAAAAA'
            'CH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==" width="400" height="300"></div></body></html>')


ADMONITION = (f'<div class="admonition answer"><p class="admonition-title">{ANSWER}</p><p style="color:#222">'
              'Embedded X: first run 2.66 s.</p></div>')
QUOTE = f'<blockquote style="color:#8a8a8a"><p><strong>{ANSWER}</strong></p><p>Embedded X: 2.66 s.</p></blockquote>'


@needs_browser
def test_a_terminal_block_that_wraps_and_a_word_split_in_a_table_fail_the_layout_check(serve, browser):
    base = serve({"wraps.html": WRAPPING, "table.html": TABLE})
    wrapped = site_layout.wrapped_problems(browser, base + "wraps.html", 1280, 900)
    split = site_layout.split_problems(browser, base + "table.html", 1280, 900)
    # The folded block is unfolded and checked too; the block that scrolls sideways keeps its lines.
    assert wrapped == [f"at 1280px, a terminal block wraps its lines: {'a' * 60!r}",
                       f"at 1280px, a terminal block wraps its lines: {'b ' * 30!r}"], wrapped
    assert split == ["at 1280px, a table cell splits '19' over lines"], split


@needs_browser
def test_a_lesson_needs_its_answer_in_dark_text_in_an_admonition_and_its_figure_near_the_top(serve, browser):
    pages = {"good.html": lesson_page(ADMONITION, above=100, figure_at=100),
             "quoted.html": lesson_page(QUOTE, above=100, figure_at=100),
             "low.html": lesson_page(ADMONITION, above=950, figure_at=10),
             "none.html": lesson_page("<p>no answer</p>", figure_at=1500)}
    base = serve(pages)
    found = {name: site_layout.lesson_problems(browser, base + name) for name in pages}
    assert found["good.html"] == []
    assert [p.split(": ", 1)[1].split(" (")[0] for p in found["quoted.html"]] == [
        "the answer is in a quote, not an admonition", "the answer's text is pale"], found
    low = found["low.html"]
    assert len(low) == 1 and low[0].startswith("at 1280x900: the answer ends at "), low
    assert "below the first screen" in low[0]
    none = found["none.html"]
    assert len(none) == 2 and none[0] == "at 1280x900: the lesson shows no answer titled 'What this run answers'"
    assert re.match(r"at 1280x900: the first figure's top is at \d+ px, below 1350 px", none[1]), none
