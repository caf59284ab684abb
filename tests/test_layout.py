"""The package's layers import one way only, lazy imports included, and no import closes a cycle."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tfgraphs"
BASE = {"errors", "units", "fileio", "machine", "tfimport", "processes", "usercode", "pagetables"}   # plain helpers any layer may use

# Each layer and the layers it may import, itself included.
MAY_IMPORT = {
    "base": {"base"},
    "spec": {"base", "spec"},
    "graphdef": {"base", "spec", "graphdef"},
    "worker": {"base", "spec", "graphdef", "worker"},
    "records": {"base", "spec", "records"},
    "findings": {"base", "spec", "records", "findings"},
    "render": {"base", "spec", "records", "findings", "render"},
    "jobs": {"base", "spec", "records", "graphdef", "jobs"},
    "labs": {"base", "spec", "graphdef", "worker", "records", "labs"},   # records: a lab's timings go to the judge
    "api": {"base", "spec", "records", "jobs", "render", "api"},
    "cli": {"base", "spec", "records", "jobs", "render", "labs", "api", "cli"},
}
# Imports across the layers that are the point: a notebook's cells are watched by hooks in the notebook's own process.
ALLOWED = {("tfgraphs.api.commands", "tfgraphs.worker.watch")}
# Where TensorFlow may be imported by name; everywhere else reaches it only through a worker or tfimport.
TENSORFLOW = {"worker", "graphdef", "labs"}
TF_IMPORTER = "tfgraphs.tfimport"


def layer(module):
    """tfgraphs.jobs.network -> jobs; tfgraphs.units -> base; the package itself -> None (the public API)."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] == "__main__":
        return None
    return "base" if parts[1] in BASE else parts[1]


def read_modules(root=PACKAGE):
    """{module name: source} for every .py file of the package."""
    out = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = (path.name == "__init__.py",
                                                                           path.read_text())
    return out


def imports(name, is_package, source, known):
    """The modules `name` imports anywhere in its source (inside functions too), as known module names."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".") if is_package else name.split(".")[:-1]
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            found |= {base} | {f"{base}.{a.name}" for a in node.names}
    return {m for m in found if m in known or m.split(".")[0] == "tensorflow"}


def violations(modules):
    """Lines naming every import against the layers, every TensorFlow import out of place, and every cycle."""
    edges, said = {}, []
    for name, (is_package, source) in modules.items():
        targets = imports(name, is_package, source, modules)
        # A module importing its own package's __init__ is how Python loads it, not a dependency.
        edges[name] = {t for t in targets if t in modules and t != name and not name.startswith(t + ".")}
        here = layer(name)
        for t in sorted(targets):
            if t.split(".")[0] == "tensorflow":
                if here not in TENSORFLOW and here is not None and name != TF_IMPORTER:
                    said.append(f"{name} imports {t}")
            elif (here is not None and layer(t) is not None and layer(t) not in MAY_IMPORT[here]
                  and (name, t) not in ALLOWED):
                said.append(f"{name} ({here}) imports {t} ({layer(t)})")
    said += [" -> ".join(c) for c in cycles(edges)]
    return said


def cycles(edges):
    """One cycle through each module that can reach itself, as a list of modules."""
    found = []
    for start in sorted(edges):
        path, seen = [(start, iter(sorted(edges[start])))], {start}
        while path:
            node, rest = path[-1]
            nxt = next(rest, None)
            if nxt is None:
                path.pop()
            elif nxt == start:
                cycle = [n for n, _ in path] + [start]
                if min(cycle[:-1]) == start:
                    found.append(cycle)
                break
            elif nxt not in seen and nxt in edges:
                seen.add(nxt)
                path.append((nxt, iter(sorted(edges[nxt]))))
    return found


def test_the_package_follows_its_layers():
    modules = read_modules()
    assert {layer(m) for m in modules} - {None} == set(MAY_IMPORT)
    assert violations(modules) == []


@pytest.mark.parametrize("wrong, said", [
    ({"tfgraphs.spec.network": "from tfgraphs.jobs import runner"},
     "tfgraphs.spec.network (spec) imports tfgraphs.jobs.runner (jobs)"),
    ({"tfgraphs.records.results": "def f():\n    from tfgraphs.render.page import page\n"},
     "tfgraphs.records.results (records) imports tfgraphs.render.page (render)"),
    ({"tfgraphs.jobs.runner": "from ..worker import protocol"}, "tfgraphs.jobs.runner (jobs) imports tfgraphs.worker"),
    ({"tfgraphs.render.page": "import tensorflow as tf"}, "tfgraphs.render.page imports tensorflow"),
    ({"tfgraphs.findings.sweep": "def f():\n    from tfgraphs.findings import compare\n",
      "tfgraphs.findings.compare": "from tfgraphs.findings.sweep import f\n"},
     "tfgraphs.findings.compare -> tfgraphs.findings.sweep -> tfgraphs.findings.compare"),
])
def test_a_wrong_import_is_named(wrong, said):
    modules = read_modules()
    for name, line in wrong.items():
        is_package, source = modules[name]
        modules[name] = (is_package, source + "\n" + line)
    assert any(s.startswith(said) for s in violations(modules)), violations(modules)
