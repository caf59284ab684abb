"""Build the docs site, open every page in headless Chromium, and check its tables, code blocks and links.

    python scripts/check_site.py                  # exit 0: every page passed; 1: problems, listed; 2: no browser
    CHROMIUM=/path/to/chrome python scripts/check_site.py
    python scripts/check_site.py --built SITE_DIR  # check a site `mkdocs build --strict` already built there

Each page is loaded from a local server on 127.0.0.1 and its DOM, after the page's scripts ran, is checked: its
scripts threw nothing, a page whose markdown has a table shows a <table>, every fenced code block's text is on the
page with a copy button, every internal href and src answers 200, and every #anchor names an id on its target page.
External links are listed, never fetched. The search index must hold every page. Each page is loaded once, at
1280x900, and resized for the other layout. It is laid out at 1280x900, where nothing visible may need horizontal
scrolling (prose, tables, figures) and a terminal block keeps its lines, scrolling sideways inside itself, and at
390x800, a phone, where prose and figures must fit. A lesson (a page with a lesson block) shows on its first screen at
1280x900 its answer, in dark text in an admonition, and the top of its first figure within 1350 px (site_layout.py).
"""

import functools
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from headless_chromium import BROWSERS, PAGE_TIMEOUT, Browser, find_browser
from site_layout import FIRST_SCREEN, loaded_problems

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(`{3,})[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)
TABLE = re.compile(r"^[ \t]*\|.*\|[ \t]*\n[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$", re.M)
NOT_FETCHED = ("mailto:", "javascript:", "data:", "blob:", "tel:")
@dataclass
class Dom:
    """What the checks need from one page's DOM."""

    tables: int = 0
    copy_buttons: int = 0
    ids: set = field(default_factory=set)
    refs: list = field(default_factory=list)
    code: list = field(default_factory=list)


class DomReader(HTMLParser):
    """Collects tables, ids, href/src values and the text of each <pre> from an HTML document."""

    def __init__(self):
        super().__init__()
        self.dom, self.pre_depth = Dom(), 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.dom.tables += tag == "table"
        self.dom.copy_buttons += tag == "button" and attributes.get("data-md-type") == "copy"
        for name in ("id", "name") if tag == "a" else ("id",):
            if attributes.get(name):
                self.dom.ids.add(attributes[name])
        self.dom.refs += [value for name, value in attrs if name in ("href", "src") and value is not None]
        if tag == "pre":
            self.pre_depth += 1
            self.dom.code.append("")

    def handle_endtag(self, tag):
        self.pre_depth -= tag == "pre" and self.pre_depth > 0

    def handle_data(self, data):
        if self.pre_depth:
            self.dom.code[-1] += data


def parse(html):
    """The Dom of an HTML document."""
    reader = DomReader()
    reader.feed(html)
    reader.close()
    return reader.dom


def squeeze(text):
    """Text with runs of whitespace made one space, so that rendering's line endings do not matter."""
    return " ".join(text.split())


def content_problems(markdown, dom):
    """What the page's markdown holds that its DOM does not show: tables, and the text of fenced code blocks."""
    problems = []
    prose = FENCE.sub("", markdown)
    tables = len(TABLE.findall(prose))
    if dom.tables < tables:
        problems.append(f"the markdown has {tables} table(s), the page shows {dom.tables}")
    shown = [squeeze(text) for text in dom.code]
    blocks = [body for _, body in FENCE.findall(markdown)]
    for body in blocks:
        wanted = squeeze(body)
        if wanted and not any(wanted in text for text in shown):
            problems.append(f"a code block is missing: {body.strip().splitlines()[0][:80]!r}")
    if dom.copy_buttons < len(blocks):
        problems.append(f"{len(blocks)} code block(s), {dom.copy_buttons} copy button(s)")
    return problems


def search_problems(site_dir, pages):
    """The pages [(url, markdown)] that the site's search index does not hold."""
    index = json.loads((Path(site_dir) / "search" / "search_index.json").read_text())
    found = {doc["location"].split("#")[0] for doc in index["docs"]}
    return [f"the search index lacks {url}" for url, _ in pages if url.removeprefix("./") not in found]


def link_problems(page_url, dom, fetch):
    """(problems, external links) of a page's hrefs and srcs; fetch(url) gives (status, Dom or None) of a served url."""
    problems, external = [], []
    origin = urlsplit(page_url).netloc
    for ref in dict.fromkeys(dom.refs):
        if ref.startswith(NOT_FETCHED) or not ref.strip():
            continue
        absolute = urljoin(page_url, ref)
        if urlsplit(absolute).netloc != origin:
            external.append(absolute)
            continue
        target, anchor = urldefrag(absolute)
        status, target_dom = (200, dom) if target == urldefrag(page_url)[0] else fetch(target)
        if status != 200:
            problems.append(f"{ref} -> HTTP {status}")
        elif anchor and (target_dom is None or unquote(anchor) not in target_dom.ids):
            problems.append(f"{ref} -> no id {anchor!r} on {urlsplit(target).path}")
    return problems, external


def fetcher(rendered):
    """fetch(url) -> (status, Dom or None), one GET per url; the pages the browser rendered count as fetched."""
    @functools.lru_cache(maxsize=None)
    def fetch(url):
        if url in rendered:
            return 200, rendered[url]
        try:
            with urllib.request.urlopen(url, timeout=PAGE_TIMEOUT) as answer:
                is_html = answer.headers.get_content_type() == "text/html"
                return answer.status, parse(answer.read().decode("utf-8", "replace")) if is_html else None
        except urllib.error.HTTPError as error:
            return error.code, None
        except (urllib.error.URLError, OSError):   # no answer at all: reported as a broken link, status 0
            return 0, None
    return fetch


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site without a log line per request."""

    def log_message(self, *args):
        pass

    def handle(self):
        try:
            super().handle()
        except ConnectionError:
            pass   # the browser dropped a request it no longer needed when it moved on to the next page


def serve(folder):
    """A server for FOLDER on 127.0.0.1 at a free port, running in a daemon thread; returns (server, base url)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def build(site_dir):
    """Build the site strictly into SITE_DIR; returns [(url, markdown)] of every page, the generated ones included."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site_dir)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"mkdocs build --strict failed:\n{proc.stderr[-3000:]}")
    return site_pages()


def site_pages():
    """[(url, markdown)] of every page of the site, the generated ones included."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files
    config = load_config(str(ROOT / "mkdocs.yml"))
    files = config.plugins.on_files(get_files(config), config=config)
    return [(page.url, page.content_string) for page in files.documentation_pages()]


def check_pages(pages, base, browser):
    """{url: problems}, the sorted external links and {url: Dom} of PAGES [(url, markdown)] served at BASE: each page
    loaded once, at the first screen's size, its DOM read and then its layouts checked (site_layout)."""
    urls = [urljoin(base, url) for url, _ in pages]
    doms, thrown, laid_out = {}, {}, {}
    browser.viewport(*FIRST_SCREEN)
    for url, (_, markdown) in zip(urls, pages):
        html, thrown[url] = browser.dom(url)
        doms[url] = parse(html)
        laid_out[url] = loaded_problems(browser, lesson="<!-- lesson: " in markdown)
    fetch = fetcher(doms)
    problems, external = {}, set()
    for url, (_, markdown) in zip(urls, pages):
        broken, outside = link_problems(url, doms[url], fetch)
        errors = [f"script error: {error}" for error in thrown[url]]
        problems[url] = errors + content_problems(markdown, doms[url]) + broken + laid_out[url]
        external.update(outside)
    return problems, sorted(external), doms


def report(problems, external, doms, browser_name, site_wide):
    """Print each page's line and problems, the external links and the site's own problems; return the count."""
    for url, found in problems.items():
        dom = doms[url]
        print(f"{'WRONG' if found else 'ok   '} {urlsplit(url).path:<22} {dom.tables:>2} tables "
              f"{len(dom.code):>3} code blocks {len(set(dom.refs)):>3} links")
        for problem in found:
            print(f"      {problem}")
    print(f"external links, listed and not fetched ({len(external)}):")
    for link in external:
        print(f"      {link}")
    for problem in site_wide:
        print(f"WRONG {problem}")
    failed = sum(bool(found) for found in problems.values())
    print(f"{len(problems)} pages checked in {browser_name}, {failed} with problems; search index "
          f"{'incomplete' if site_wide else 'holds every page'}")
    return failed + len(site_wide)


def main(argv):
    built = Path(argv[1]) if argv[:1] == ["--built"] and len(argv) == 2 else None
    if argv and built is None:
        print("check_site: usage: check_site.py [--built SITE_DIR]", file=sys.stderr)
        return 2
    path = find_browser()
    if path is None:
        print(f"check_site: no browser found (tried $CHROMIUM and {', '.join(BROWSERS)}); "
              "install one, e.g. apt-get install chromium", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="tfgraphs-site-") as workdir:
        site = built or Path(workdir) / "site"
        try:
            listed = site_pages() if built else build(site)
        except RuntimeError as exc:   # the strict build's own messages say what to fix
            print(f"check_site: {exc}", file=sys.stderr)
            return 1
        site_wide = search_problems(site, listed)
        server, base = serve(site)
        browser = Browser(path, Path(workdir) / "profile")
        try:
            problems, external, doms = check_pages(listed, base, browser)
        finally:
            browser.close()
            server.shutdown()
            server.server_close()
    return 1 if report(problems, external, doms, Path(path).name, site_wide) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
