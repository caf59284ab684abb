"""`python -m tfgraphs.worker.watch ARGS` in a forked child, tensorflow missing from sys.modules until the script
imports it, when it gets the server's module: the watch starts on the script's own import, as in a fresh interpreter."""

import importlib.util
import runpy
import sys


class Preloaded:
    """A one-shot sys.meta_path finder and loader: the first import of a package the server imported gives the
    server's module, run through the import machinery (and any finder ahead of this one) as a fresh import would."""

    def __init__(self, module):
        self.module, self.spec = module, module.__spec__

    def find_spec(self, name, path=None, target=None):
        if name != self.module.__name__:
            return None
        sys.meta_path.remove(self)
        return importlib.util.spec_from_loader(name, self, origin=self.spec.origin, is_package=True)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        module.__spec__ = self.spec   # the import machinery gave it this finder's spec


# Out of sys.modules until imported again (its submodules stay loaded).
sys.meta_path.insert(0, Preloaded(sys.modules.pop("tensorflow")))
sys.argv[0] = "tfgraphs.worker.watch"
runpy.run_module("tfgraphs.worker.watch", run_name="__main__", alter_sys=True)
