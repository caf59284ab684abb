"""Page tables made as another process's: what a worker forked from the worker server fills in before it runs.

A fork copies the page tables of private memory but shares its pages until one is written, and does not copy those
of files (shared libraries). A child left so counts TensorFlow's code pages anew as it touches them (its resident
memory starting at about half of a fresh interpreter's), and copies a page of the heap on its first write to it (any
object whose count of references changes), which made its first build and session take milliseconds longer.
"""

import os

MADV_POPULATE_READ, MADV_POPULATE_WRITE = 22, 23   # linux/mman.h (Linux 5.14)
PRESENT = 1 << 63                                   # a /proc/PID/pagemap entry's "page present" bit


def mapped_pages():
    """{advice: [(address, length)]}: each run of pages in this process's page tables (/proc/self/pagemap), to be
    read (shared file pages: libraries' code) or written (private writable pages: the heap, libraries' data)."""
    import numpy as np

    page, runs = os.sysconf("SC_PAGE_SIZE"), {MADV_POPULATE_READ: [], MADV_POPULATE_WRITE: []}
    with open("/proc/self/maps") as maps, open("/proc/self/pagemap", "rb") as pagemap:
        for line in maps:
            fields = line.split(maxsplit=5)
            name, perms = (fields[5].strip() if len(fields) > 5 else ""), fields[1]
            if name.startswith("[v") or not perms.startswith("r"):   # [vdso], [vvar], [vsyscall]; guard pages
                continue
            private_writable = perms[1] == "w" and perms[3] == "p"
            if not private_writable and not name.startswith("/"):
                continue
            start, end = (int(a, 16) for a in fields[0].split("-"))
            pagemap.seek(start // page * 8)
            present = (np.frombuffer(pagemap.read((end - start) // page * 8), np.uint64) & PRESENT) != 0
            edges = np.flatnonzero(np.diff(np.concatenate(([0], present.astype(np.int8), [0]))))
            advice = MADV_POPULATE_WRITE if private_writable else MADV_POPULATE_READ
            runs[advice] += [(start + int(a) * page, int(b - a) * page) for a, b in zip(edges[::2], edges[1::2])]
    return runs


def populate(mapped):
    """In a forked child: make its page tables hold what mapped_pages() found in its parent's, as a process that did
    the parent's work itself would have them.

    Reading the file pages maps them (they are in the page cache); writing the private ones gives the child its own
    copy of each, as the parent's work left them.
    """
    import ctypes

    madvise = ctypes.CDLL(None, use_errno=True).madvise
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    for advice, runs in mapped.items():
        for address, length in runs:
            madvise(address, length, advice)   # a kernel before 5.14 refuses: the child then faults them as it goes
