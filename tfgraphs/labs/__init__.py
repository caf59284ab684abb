"""Course labs: a sheet, a starter and a notebook each in course/, copied out by `tfgraphs lab start N`, and their
checkers (`tfgraphs lab check N PATH`, or `tfgraphs.labs.check(N)` in a notebook)."""

import os
import re
from importlib import resources
from pathlib import Path

from tfgraphs.errors import UsageError

LABS = {
    1: "Feed, don't embed: a placeholder graph and a variable graph",
    2: "What the first run pays for: session presets and traced ops",
    3: "Graph bloat: Const bytes, the 2 GiB limit, stripping constants",
    4: "One shape only: blocked 1-D convolution",
    5: "Warm before serving: build the executor the first request needs",
    6: "A graph that grows: fix a leaky training loop and guard it with finalize()",
    7: "Watch your own script: fix what `tfgraphs watch` flags",
}
FILES = ("README.md", "starter.py", "starter.ipynb")   # what a student gets; the solutions are not shipped
COURSE_PAGE = "course.md"   # the course's README, copied beside each lab's sheet so that the sheet's link to it works
COPIED = FILES + (COURSE_PAGE,)
# What a check's code may hold in memory, its processes together (resident), before it counts as WRONG: far past
# what any lab needs (TensorFlow itself, about 0.6 GB), short of what one submission should take of a machine.
DEFAULT_MEMORY_BYTES = 4 * 2**30
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s#]*)(#[^)\s]*)?\)")   # a markdown link: [text](target#anchor)


def check(number, namespace=None, timeout=60.0):
    """In a notebook: print lab N's checks of the definitions in namespace (default: the caller's globals)."""
    import sys

    from tfgraphs.labs.checking import check_namespace

    if namespace is None:
        namespace = sys._getframe(1).f_globals
    check_namespace(number, namespace, timeout)


def course():
    """The folder of the shipped labs (a Traversable: a real folder, or inside a zip)."""
    return resources.files("tfgraphs.labs") / "course"


def known_lab(number):
    """Refuse a lab number there is no lab for."""
    if number not in LABS:
        raise UsageError(f"no lab {number}; the labs are {', '.join(map(str, LABS))}")


def lab_folder(number):
    """Lab `number`'s shipped folder, e.g. course/1-feed."""
    known_lab(number)
    (folder,) = [f for f in course().iterdir() if f.is_dir() and f.name.split("-")[0] == str(number)]
    return folder


def start(number, directory=None):
    """Copy lab `number`'s FILES into directory (default ./labN); refuse before copying if any is there already."""
    source = lab_folder(number)
    target = Path(directory if directory is not None else f"lab{number}")
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} is a file, not a folder")
    # lexists: a link, even one to nowhere, counts as there; the writes below never follow one.
    there = [str(target / name) + (" (a symbolic link)" if os.path.islink(target / name) else "")
             for name in COPIED if os.path.lexists(target / name)]
    if there:
        raise UsageError(f"{', '.join(there)} already exist{'s' if len(there) == 1 else ''}; "
                         f"choose another folder: tfgraphs lab start {number} DIR")
    made = [folder for folder in (target, *target.parents) if not folder.exists()]   # innermost first
    copied = []
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name, data in copies(source).items():
            _write_new(target / name, data)
            copied.append(target / name)
    except OSError as exc:
        # A read-only, missing or full place: what was copied and the folders made are taken back, so the lab's
        # folder is whole or absent.
        for done in copied:
            done.unlink()
        for folder in made:
            if folder.is_dir() and not folder.is_symlink():
                folder.rmdir()
        raise UsageError(f"cannot write lab {number} into {target}: {exc.strerror}") from None
    return copied


def copies(source):
    """{name in the copy: bytes} of the lab in folder source: its FILES and the course page, each markdown link
    pointed where the copy has its target, or made plain text where the copy has none (the site's lessons)."""
    # The sheet links the course page as ../README.md; the course page links this lab's sheet by its folder.
    moved = {"README.md": {"../README.md": COURSE_PAGE},
             COURSE_PAGE: {f"{source.name}/README.md": "README.md"}}
    texts = {name: (source / name).read_bytes() for name in FILES}
    texts[COURSE_PAGE] = (course() / "README.md").read_bytes()
    for name, links in moved.items():
        texts[name] = relinked(texts[name].decode("utf-8"), links, set(texts)).encode("utf-8")
    return texts


def relinked(markdown, links, present):
    """markdown with each relative link's target renamed by links; one to no file of present left as its text."""
    def relink(match):
        text, target, anchor = match.group(1), links.get(match.group(2), match.group(2)), match.group(3) or ""
        if not target or "://" in target or target.startswith(("mailto:", "/")) or target in present:
            return f"[{text}]({target}{anchor})"
        return text

    return LINK.sub(relink, markdown)


def _write_new(path, data):
    """Write data to a new file at path: never through a link, never over a file made since it was looked for."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    except OSError:
        os.unlink(path)   # made above by this call (O_EXCL), so it is this call's to take back
        raise
