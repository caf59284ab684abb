"""The unembed job: rewrite a graph's large Consts into variables in a worker, then check it in two more."""

import os
import shutil
import tempfile
from dataclasses import dataclass

import numpy as np

from tfgraphs.errors import UsageError
from tfgraphs.fileio import folder_takes_a_file
from tfgraphs.jobs import owngraph, runner
from tfgraphs.records.rows import Measurement
from tfgraphs.records.unembed import Unembedding, side
from tfgraphs.spec import options
from tfgraphs.spec.options import REQUIRED, Option, byte_size, switch
from tfgraphs.spec.owngraph import MIN_BYTES, encode_feeds, encode_fetches, max_abs_difference, tolerance
from tfgraphs.spec.tasks import UnembedTask


@dataclass(frozen=True)
class Config(owngraph.Config):
    """The graph to rewrite, where to write it, and whether to check it."""

    out: str = Option(REQUIRED, options.path, "the SavedModel folder to write (new or empty)", short="-o", metavar="OUT").field()
    min_bytes: int = Option(MIN_BYTES, byte_size, "move Consts holding at least SIZE bytes; units B, kB, MB, GB, "
                            "KiB, MiB, GiB", metavar="SIZE", shown="1MiB").field()
    check: bool = Option(False, switch, "run the original and the rewritten graph on the same feeds in fresh "
                         "workers; exit 1 when their outputs differ by more than the dtype's tolerance").field()
    replace: bool = Option(False, switch, "replace OUT when it exists and is not empty (the old one is removed only "
                           "once the new one is in place)").field()


def check_out(config):
    """Refuse an OUT that is a link or a mount point, or that exists and is not empty without --replace (that it
    holds no input and no other output is the API's check of outputs)."""
    if os.path.islink(config.out):
        raise UsageError(f"-o {config.out} is a symbolic link; give the folder it names, or a new one")
    if os.path.ismount(config.out):
        # The finished SavedModel is renamed into place, and a mount point cannot be renamed over.
        raise UsageError(f"-o {config.out} is a mount point; give a folder inside it")
    if os.path.exists(config.out) and not os.path.isdir(config.out):
        raise UsageError(f"-o {config.out} exists and is not a folder")
    folder_takes_a_file(config.out)
    if os.path.isdir(config.out) and os.listdir(config.out) and not config.replace:
        raise UsageError(f"-o {config.out} exists and is not empty; choose a new folder, or --replace to replace it")


def plan(config):
    """Refuse a bad OUT, then read and check the graph; one rewriting worker, and two more with --check."""
    check_out(config)
    found = owngraph.interface_of(config)
    return owngraph.GraphPlan({}, (), workers=1 + 2 * config.check, interface=found, data_held=owngraph.holds(found))


def _install(written, out):
    """Rename the finished SavedModel into place; an old OUT (--replace) is removed only once the new one is there."""
    old = None
    if os.path.exists(out):
        old = written + ".old"
        os.rename(out, old)
    os.rename(written, out)
    if old:
        shutil.rmtree(old)


def _compare(before_npz, after_npz):
    """(largest |before - after| over every output, that output's tolerance, whether every output is within its own)."""
    worst, tol, within = 0.0, 0.0, True
    with np.load(before_npz) as a, np.load(after_npz) as b:
        for key in a.files:
            ref = a[key]
            diff = max_abs_difference(ref, b[key]) if key in b.files else float("inf")
            within = within and diff <= tolerance(ref.dtype, ref)
            if diff >= worst:
                worst, tol = diff, tolerance(ref.dtype, ref)
    return worst, tol, within


def _check(config, found, tmp, progress, timeout):
    """Run the original and the rewritten graph on the same feeds: (before, after, _compare's answer, errors, docs)."""
    tag = found.tag or "serve"
    docs, paths = [], []
    for what, path, graph_tag in (("original", found.path, found.tag), ("rewritten", config.out, tag)):
        outputs = os.path.join(tmp, f"{what}.npz")
        t = owngraph.task(config, found, path=path, tag=graph_tag, outputs_path=outputs)
        docs.append(runner.run_worker(t, f"{what} graph", progress, timeout))
        paths.append(outputs)
    before, after = (Measurement.from_worker(d) for d in docs)
    errors = tuple(f"{w} graph: {m.error}" for w, m in zip(("original", "rewritten"), (before, after))
                   if m.status != "ok")
    return before, after, (None, None, None) if errors else _compare(*paths), errors, docs


def run(config, plan, progress, timeout=None):
    """Rewrite into a temporary folder beside OUT, rename it into place, and check it when asked."""
    found = plan.interface
    parent = os.path.dirname(os.path.abspath(config.out))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tfgraphs-unembed-", dir=parent)
    try:
        written = os.path.join(tmp, "model")
        t = UnembedTask(path=found.path, out=written, min_bytes=config.min_bytes, tag=found.tag,
                        fetches=encode_fetches(found.fetches), feeds=encode_feeds(found.feeds),
                        signature=config.signature)
        doc = runner.run_worker(t, "rewrite", progress, timeout)
        base = {"path": config.path, "out": config.out, "min_bytes": config.min_bytes}
        if doc.get("status") != "ok":
            tf_version, machine = runner.envelope([doc])
            return Unembedding(**base, errors=(f"rewrite: {doc.get('error')}",), tf_version=tf_version,
                               machine=machine)
        _install(written, config.out)
        before = after = None
        compared, errors, ran = (None, None, None), (), [doc]
        if config.check:
            before, after, compared, errors, docs = _check(config, found, tmp, progress, timeout)
            ran += docs
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tf_version, machine = runner.envelope(ran)
    return Unembedding(**base, before=side(doc["before"], before), after=side(doc["after"], after),
                       moved=tuple(doc["moved"]), left=tuple(doc["left"]), checked=config.check,
                       max_abs_err=compared[0], tolerance=compared[1], within=compared[2],
                       unembed_s=doc.get("unembed_s"),
                       unembed_peak_rss_bytes=doc.get("peak_rss_bytes"), unembed_phases=doc.get("phases", {}),
                       tf_rss_bytes=doc.get("tf_rss_bytes"), errors=errors, tf_version=tf_version,
                       machine=machine)
