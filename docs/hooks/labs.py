"""MkDocs hook: the lab sheets and starters, read from the package at build time, as the site's Labs section."""

import posixpath
import re
from pathlib import Path

from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
# The labs as the package ships them: one folder per lab, each with a sheet (README.md) and its starters.
SOURCE = ROOT / "tfgraphs" / "labs" / "course"
SITE_FOLDER = "labs"   # where they appear on the site; the tree below it is the same as below SOURCE
LINK = re.compile(r"(\]\()([^)\s#]*)(#[^)\s]*)?(\))")

log = get_plugin_logger(__name__)


def lab_files(source=SOURCE):
    """Every file of the labs tree that belongs on the site, as paths relative to the tree."""
    return sorted(path.relative_to(source) for path in source.rglob("*")
                  if path.is_file() and not any(part.startswith(("_", ".")) for part in path.relative_to(source).parts))


def on_files(files, config):
    """Add the sheets as pages and the starters as files to download, under labs/, straight from SOURCE."""
    for relative in lab_files():
        src_uri = f"{SITE_FOLDER}/{relative.as_posix()}"
        files.append(File.generated(config, src_uri, abs_src_path=str(SOURCE / relative)))
    return files


def site_link(target, source, page_uri, docs_dir):
    """The link TARGET in the file SOURCE (a lesson or a sheet) becomes on the page PAGE_URI; None: not on the site."""
    # Lessons and sheets link each other by their paths in the repository, so that the links work there too.
    real = (source.parent / target).resolve()
    if real.is_relative_to(SOURCE) and real.exists():
        on_site = f"{SITE_FOLDER}/{real.relative_to(SOURCE).as_posix()}"
    elif real.is_relative_to(docs_dir) and real.exists():
        on_site = real.relative_to(docs_dir).as_posix()
    else:
        return None
    return posixpath.relpath(on_site, posixpath.dirname(page_uri))


def on_page_markdown(markdown, page, config, files):
    """Turn relative links between lessons and sheets into links between pages; warn (--strict fails) on others."""
    uri = page.file.src_uri
    docs_dir = Path(config["docs_dir"]).resolve()
    in_labs = uri.startswith(SITE_FOLDER + "/")
    source = SOURCE / uri[len(SITE_FOLDER) + 1:] if in_labs else docs_dir / uri

    def rewrite(match):
        opening, target, anchor, closing = match.groups()
        if not target or "://" in target or target.startswith(("mailto:", "/")):
            return match.group(0)
        link = site_link(target, source, uri, docs_dir)
        if link is None:
            log.warning("%s links to %s, which is not on the site", source.relative_to(ROOT), target)
            return match.group(0)
        return f"{opening}{link}{anchor or ''}{closing}"

    markdown = LINK.sub(rewrite, markdown)
    return with_downloads(markdown, source) if in_labs else markdown


def with_downloads(markdown, sheet):
    """The sheet with a line under its title that links the lab's other files (its starters), served next to it."""
    folder = sheet.parent.relative_to(SOURCE)
    downloads = [path.name for path in lab_files() if path.parent == folder and path.suffix != ".md"]
    if not downloads or folder == Path("."):
        return markdown
    line = "Files for this lab: " + ", ".join(f"[`{name}`]({name})" for name in downloads) + "."
    return re.sub(r"^(# .*\n)", lambda title: f"{title.group(1)}\n{line}\n", markdown, count=1, flags=re.M)
