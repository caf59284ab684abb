"""Loaded by every Python process of a test session (conftest puts this folder on PYTHONPATH): in a session with
worker servers, two differences from the product, each to save time that no test measures.

- A watched script's runner is forked too, saving its import of TensorFlow (forked_watch.py). The product starts it
  fresh, since a script imports TensorFlow itself after whatever it sets first; the tests' scripts set nothing first.
  test_watch_worker starts the runner fresh, as the reference, and test_workers checks the product's own rule; a
  test of what a script sees of its own process (/proc/self/cmdline, its orphans) asks for own_servers, and so a
  fresh runner.
- A forked worker neither maps the server's library pages nor copies its heap up front (tfgraphs.pagetables): that
  (about 0.15 s a worker, 0.03 s of it the mapping) only keeps a worker's first milliseconds as fast as a fresh
  one's, which scripts/worker_fidelity.py shows, and its resident memory as large. A server started without the
  session's folder in its environment (own_servers) forks as the product's do; test_workers' scope of its own checks
  the resident memory.
"""

import os
import sys

WATCH = "tfgraphs.worker.watch"


def _patch(processes):
    """processes.start forks WATCH's runner as forked_watch, which hides TensorFlow until the script imports it."""
    real = processes.start

    def start(argv, **kwargs):
        # With no session server (own_servers) it starts fresh, as the product starts it: a child of the command.
        if argv[1:3] == ["-m", WATCH] and processes.SERVERS in os.environ:
            argv = [argv[0], "-m", "forked_watch", *argv[3:]]
        return real(argv, **kwargs)

    processes.start, processes.FORKABLE = start, (*processes.FORKABLE, "forked_watch")


def _nothing_mapped(pagetables):
    """pagetables.mapped_pages finding no pages to map or copy."""
    pagetables.mapped_pages = dict


class _PatchOnImport:
    """A sys.meta_path finder: patch each of PATCHES once it has loaded."""

    def find_spec(self, name, path=None, target=None):
        if name not in PATCHES:
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        sys.meta_path.insert(0, self)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            PATCHES[name](module)

        spec.loader.exec_module = exec_module
        return spec


PATCHES = {"tfgraphs.processes": _patch, "tfgraphs.pagetables": _nothing_mapped}
if "TFGRAPHS_WORKER_SERVERS" in os.environ:
    sys.meta_path.insert(0, _PatchOnImport())
