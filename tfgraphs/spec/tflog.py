"""TensorFlow's own log of a first run: which modules to ask for, and the lines of it that are understood."""

import re

# VLOG(1) of Grappler's meta optimizer (one line per pass) and of both constant folders' source files; 2.12 matches
# a module by its exact basename, absl (2.16 and newer) by glob too.
VMODULE = "meta_optimizer=1,constant_folding=1"
ENV = {"TF_CPP_MIN_LOG_LEVEL": "0", "TF_CPP_VMODULE": VMODULE}

# Both prefixes end in "<file>.cc:<line>] ": absl's (2.16 and newer) names the file alone, the older one its path.
_LINE = re.compile(r"(?:^|[\s/])(?P<path>(?:[\w.-]+/)*(?P<file>[\w.-]+\.cc)):(?P<line>\d+)\] (?P<message>.*)$")
# meta_optimizer.cc: "NAME: Graph size after: 5 nodes (0), 4 edges (0), time = 8.368ms."
_PASS = re.compile(r"^(?P<name>\S.*?): Graph size after: (?P<nodes>\d+) nodes \((?P<dnodes>-?\d+)\), "
                   r"(?P<edges>\d+) edges \((?P<dedges>-?\d+)\), time = (?P<ms>[0-9.eE+-]+) ?ms\.?$")
# common_runtime/constant_folding.cc: "Constant foldable 7 : 8" (foldable nodes : nodes), or none found.
_FOLDABLE = re.compile(r"^Constant foldable (?P<foldable>\d+) : (?P<nodes>\d+)$")
_NONE_FOLDABLE = "No constant foldable nodes found"
# ... and one line per tensor it did replace: "Replacing relu :: 0 with a constant".
_REPLACING = re.compile(r"^Replacing (?P<node>\S+) :: (?P<output>\d+) with a constant$")
_GRAPPLER_START = re.compile(r"^Starting optimization for grappler item: (?P<item>.+)$")

ASKED_FILES = ("meta_optimizer.cc", "constant_folding.cc")


def pass_stage(name):
    """grappler/NAME, the TFG pipeline's argument list left out: tfg_optimizer{any(...)} is tfg_optimizer."""
    return "grappler/" + name.split("{", 1)[0]


def logged_lines(text):
    """The lines of stderr text that come from the files asked for, as TensorFlow printed them."""
    out = []
    for line in text.splitlines():
        m = _LINE.search(line)
        if m and m.group("file") in ASKED_FILES:
            out.append(line.rstrip())
    return out


def stages(lines):
    """[{stage, seconds, source, ...}] of the lines understood, in the order logged; others are left out."""
    out, items = [], 0
    for line in lines:
        m = _LINE.search(line)
        if not m:
            continue
        source, message = f"{m.group('file')}:{m.group('line')}", m.group("message").strip()
        if m.group("file") == "meta_optimizer.cc":
            if _GRAPPLER_START.match(message):
                items += 1
            p = _PASS.match(message)
            if p:
                out.append({"stage": pass_stage(p.group("name")), "seconds": float(p.group("ms")) / 1000.0,
                            "source": source, "nodes_after": int(p.group("nodes")),
                            "nodes_change": int(p.group("dnodes")), "item": items})
        elif m.group("file") == "constant_folding.cc" and "grappler" not in m.group("path"):
            f = _FOLDABLE.match(message)
            if f:
                out.append({"stage": "classic/constant_folding", "seconds": None, "source": source,
                            "foldable": int(f.group("foldable")), "nodes": int(f.group("nodes"))})
            elif message == _NONE_FOLDABLE:
                out.append({"stage": "classic/constant_folding", "seconds": None, "source": source, "foldable": 0})
            elif _REPLACING.match(message):
                out.append({"stage": "classic/constant_folding", "seconds": None, "source": source,
                            "replaced": _REPLACING.match(message).group("node")})
    return out
