"""Results as immutable records, and their JSON file (atomic write, versioned schema)."""

import json
import os
import platform
import tempfile
from dataclasses import asdict, dataclass, field, fields, replace

from tfgraphs.stats import median_or_none

# Format history:
#   1: compare ("variants") and explain ("runs", "attribution") documents; sweep ("rows", each with its
#      "batch", plus "fit" and "tf_error") added without changing the others;
#      shapes ("modes": one per mode and switch setting, plus "switch") likewise.
SCHEMA = 1
TOOL = "tfgraphs"


@dataclass(frozen=True)
class Measurement:
    """What one worker measured; a Row holds the median of its trials in the same fields."""

    status: str = "ok"
    error: str | None = None
    graph_bytes: int | None = None
    const_bytes: int | None = None
    nodes: int | None = None
    build_s: float | None = None
    serialize_s: float | None = None
    session_s: float | None = None
    init_s: float | None = None
    first_run_s: float | None = None
    runs_s: tuple = ()
    peak_rss_bytes: int | None = None
    rss_bytes: dict = field(default_factory=dict)
    max_abs_err: float | None = None
    top_ops: tuple = ()

    @classmethod
    def from_dict(cls, d):
        """Build from a worker's or a file's dict, ignoring keys this version does not know."""
        known = {f.name for f in fields(cls)}
        d = {k: v for k, v in d.items() if k in known}
        d["runs_s"] = tuple(d.get("runs_s") or ())
        d["top_ops"] = tuple(d.get("top_ops") or ())
        return cls(**d)


# Fields aggregated across trials by their median.
_MEDIAN_FIELDS = ("graph_bytes", "const_bytes", "nodes", "build_s", "serialize_s", "session_s",
                  "init_s", "first_run_s", "peak_rss_bytes", "max_abs_err")


@dataclass(frozen=True)
class Row(Measurement):
    """One variant (under one preset): the median over its trials, with every trial kept."""

    variant: str = ""
    preset: str = "default"
    trials: tuple = ()
    batch: int | None = None   # set when one report spans several batches (sweep)

    @classmethod
    def from_trials(cls, variant, trials, preset="default"):
        """Aggregate trials: medians over the ok ones, later runs pooled; failed if any trial failed."""
        ok = [t for t in trials if t.status == "ok"]
        failed = [(i, t) for i, t in enumerate(trials, 1) if t.status != "ok"]
        agg = {name: median_or_none(getattr(t, name) for t in ok) for name in _MEDIAN_FIELDS}
        for name in ("graph_bytes", "const_bytes", "nodes", "peak_rss_bytes"):
            agg[name] = None if agg[name] is None else int(agg[name])
        rss = {}
        for phase in dict.fromkeys(p for t in ok for p in t.rss_bytes):
            rss[phase] = int(median_or_none(t.rss_bytes.get(phase) for t in ok))
        error = None
        if failed:
            i, t = failed[0]
            error = t.error if len(trials) == 1 else f"trial {i}/{len(trials)}: {t.error}"
        return cls(status="failed" if failed else "ok", error=error,
                   runs_s=tuple(s for t in ok for s in t.runs_s), rss_bytes=rss,
                   top_ops=ok[0].top_ops if ok else (), variant=variant, preset=preset,
                   trials=tuple(trials), **agg)

    @property
    def ok(self):
        return self.status == "ok"

    @property
    def later_median_s(self):
        """Median of the runs after the first, or None without any."""
        return median_or_none(self.runs_s)

    def to_dict(self):
        d = asdict(self)
        d = {"name": self.variant, **d}
        d["trials"] = [asdict(t) for t in self.trials]
        return d

    @classmethod
    def from_dict(cls, d):
        trials = tuple(Measurement.from_dict(t) for t in d.get("trials", ()))
        base = super().from_dict({**d, "variant": d.get("variant") or d.get("name", ""), "trials": ()})
        return replace(base, trials=trials)


@dataclass(frozen=True)
class Report:
    """A whole run: what command, on what machine, with what config, and its rows."""

    command: str
    config: dict
    rows: tuple
    tf_version: str | None = None
    python: str = platform.python_version()
    machine: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)   # computed sections, e.g. "attribution"

    ROWS_KEY = {"compare": "variants", "explain": "runs", "sweep": "rows", "shapes": "modes"}

    def to_dict(self):
        return {"schema": SCHEMA, "tool": TOOL, "command": self.command, "tf_version": self.tf_version,
                "python": self.python, "machine": self.machine, "config": self.config,
                self.ROWS_KEY.get(self.command, "rows"): [r.to_dict() for r in self.rows], **self.extra}

    @classmethod
    def from_dict(cls, d):
        if not isinstance(d, dict) or d.get("tool") != TOOL or not isinstance(d.get("schema"), int):
            raise ValueError("not a tfgraphs results file")
        if d["schema"] > SCHEMA:
            raise ValueError(f"results schema {d['schema']} is newer than this tfgraphs understands ({SCHEMA})")
        command = d.get("command", "compare")
        if command not in cls.ROWS_KEY:
            raise ValueError(f"unknown command {command!r} in a results file")
        key = cls.ROWS_KEY[command]
        rows = tuple(_row_type(command).from_dict(r) for r in d[key])
        known = {"schema", "tool", "command", "tf_version", "python", "machine", "config", key}
        return cls(command=command, config=d["config"], rows=rows, tf_version=d.get("tf_version"),
                   python=d.get("python", ""), machine=d.get("machine", {}),
                   extra={k: v for k, v in d.items() if k not in known})


def _row_type(command):
    """The record type of a command's rows (imported only when read, so results depends on no job)."""
    if command == "shapes":
        from tfgraphs.shapes import ModeRun
        return ModeRun
    return Row


def machine_info(devices=()):
    """Facts about this machine that every row shares."""
    return {"cpu_count": os.cpu_count(), "cpu_model": _cpu_model(), "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(), "devices": list(devices)}


def _cpu_model():
    """The CPU's marketing name from /proc/cpuinfo, or the architecture where there is none."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def write_atomic(path, write, mode="w"):
    """Run write(file) on a temporary file beside path, then rename it over path: readers see the old or the new."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tfgraphs-", suffix=os.path.splitext(path)[1], dir=directory)
    try:
        with os.fdopen(fd, mode) as f:
            write(f)
        # mkstemp makes the file private (0600); give it the mode any other new file would get.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_doc(doc, path):
    """Write a JSON document to path atomically."""
    def write(f):
        json.dump(doc, f, indent=1)
        f.write("\n")
    write_atomic(path, write)


def write_json(report, path):
    """Write the report to path atomically."""
    write_doc(report.to_dict(), path)


def read_json(path):
    """Load a report written by write_json."""
    with open(path) as f:
        return Report.from_dict(json.load(f))
