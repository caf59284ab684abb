"""Per call site of Session.run and session callables: timings, signatures, bytes fed, big arrays fed again."""

import statistics
import sys
import zlib

# Bytes of an array read to tell "unchanged": a fixed, evenly strided sample, never the whole array.
SAMPLE_BYTES = 64 * 1024
SAME_HOW = "same object, sampled bytes unchanged"


def describe(value):
    """A canonical text of a fetch structure: tensor and op names inside lists, tuples and dicts."""
    if isinstance(value, (str, bytes)):
        return repr(value)
    if isinstance(value, dict):
        parts = sorted(f"{describe(k)}: {describe(v)}" for k, v in value.items())
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(describe(v) for v in value) + "]"
    if isinstance(value, tuple):
        prefix = type(value).__name__ if hasattr(value, "_fields") else ""
        return prefix + "(" + ", ".join(describe(v) for v in value) + ")"
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else type(value).__name__


def feed_name(key):
    """The name of a feed key: the fed tensor's name, or the string given."""
    if isinstance(key, str):
        return key
    name = getattr(key, "name", None)
    return name if isinstance(name, str) else describe(key)


def names_in(value):
    """Every tensor or op name inside a fetch structure."""
    if isinstance(value, dict):
        return [n for v in value.values() for n in names_in(v)]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in names_in(v)]
    return [feed_name(value)]


def run_signature(fetches, feed_dict, options, run_metadata):
    """The names one Session.run call feeds and fetches, sorted: DirectSession keys its executors by these names
    (retrying with them sorted), so two calls with one signature share executors; options do not change it."""
    feeds = sorted(feed_name(k) for k in (feed_dict or {}))
    return f"fetches=[{', '.join(sorted(set(names_in(fetches))))}] feeds=[{', '.join(feeds)}]"


def fingerprint(array):
    """crc32 of an evenly strided sample of about SAMPLE_BYTES of array's elements."""
    if array.size == 0:
        return 0
    count = max(1, SAMPLE_BYTES // max(1, array.itemsize))
    step = -(-array.size // count)
    return zlib.crc32(array.flat[::step].tobytes())


def fed_dtype(key, graph):
    """The NumPy dtype of the tensor a feed key names (a Tensor, or its name in graph), or None."""
    try:
        tensor = graph.as_graph_element(key) if isinstance(key, str) and graph is not None else key
        return tensor.dtype.as_numpy_dtype
    except Exception:   # a key session.py reads otherwise (a nested structure, a sparse tensor): left uncounted
        return None


def handed(numpy, value, dtype):
    """The array session.py hands TensorFlow for value (np.asarray at the feed's dtype), or None where it does not."""
    if isinstance(value, numpy.ndarray) and dtype in (None, value.dtype):
        return value
    try:
        return numpy.asarray(value, dtype=dtype)
    except (TypeError, ValueError):
        return None


class FeedRecord:
    """One feed of one call site that was given a big array: how often, and how often the first one again."""

    def __init__(self, nbytes, key, given):
        self.bytes = nbytes
        self.first = key
        self.given = given
        self.calls = 0
        self.same_calls = 0


class CallSite:
    """The calls made from one line, of one kind."""

    def __init__(self, first_run_index):
        self.first_run_index = first_run_index
        self.times = []
        self.signatures = {}
        self.signature_first_s = []
        self.feed_bytes = []
        self.feeds = {}


class CallSites:
    """Every call site seen, keyed by (file, line, kind)."""

    def __init__(self, min_bytes):
        self.min_bytes = min_bytes
        self.sites = {}

    def examine_feeds(self, pairs, graph=None):
        """(bytes handed to TensorFlow, [(feed name, nbytes, sameness key, the type converted or None)] of the feeds of
        at least min_bytes): each
        value as session.py converts it, np.asarray at the fed tensor's dtype, whatever its type (list, scalar)."""
        numpy = sys.modules.get("numpy")
        if numpy is None:
            return 0, []
        total, big = 0, []
        for key, value in pairs:
            array = handed(numpy, value, fed_dtype(key, graph))
            if array is None:
                continue
            total += array.nbytes
            if array.nbytes >= self.min_bytes:
                # The value the script passed is what it repeats: a list converted anew is still the same list.
                same = (id(value), array.shape, array.dtype.str, fingerprint(array))
                given = None if array is value else type(value).__name__   # what session.py converted
                big.append((feed_name(key), array.nbytes, same, given))
        return total, big

    def record(self, where, kind, signature, seconds, feeds, run_index):
        """Add one call: where = (file, line), feeds as examine_feeds returned them."""
        site = self.sites.get((*where, kind))
        if site is None:
            site = self.sites[(*where, kind)] = CallSite(run_index)
        site.times.append(seconds)
        if signature not in site.signatures:
            site.signatures[signature] = len(site.signatures)
            site.signature_first_s.append(seconds)
        total, big = feeds
        site.feed_bytes.append(total)
        for name, nbytes, same, given in big:
            record = site.feeds.get(name)
            if record is None:
                record = site.feeds[name] = FeedRecord(nbytes, same, given)
            record.calls += 1
            record.same_calls += same == record.first

    def calls_list(self):
        """The calls entries, sorted by file, line and kind."""
        out = []
        for (file, line, kind), site in sorted(self.sites.items()):
            times = site.times
            out.append({"file": file, "line": line, "kind": kind, "n": len(times),
                        "signatures": len(site.signatures), "first_s": times[0],
                        "later_median_s": statistics.median(times[1:]) if len(times) > 1 else None,
                        "feed_bytes_per_call": statistics.median_low(site.feed_bytes),
                        "times_s": list(times), "signature_first_s": list(site.signature_first_s),
                        "first_run_index": site.first_run_index})
        return out

    def feeds_list(self):
        """The feeds entries, sorted by file, line and feed name."""
        return [{"file": file, "line": line, "feed": name, "bytes": r.bytes, "calls": r.calls,
                 "same_calls": r.same_calls, "how": SAME_HOW, **({"converted_from": r.given} if r.given else {})}
                for (file, line, _kind), site in sorted(self.sites.items())
                for name, r in sorted(site.feeds.items())]
