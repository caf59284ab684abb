"""The sessions a watched script made, by the line that made each: the graph it ran, how long making it took, its
first run and the runs that repeated a set of names it had run before (for the judge)."""

import itertools
import weakref

from tfgraphs.worker.watched import UNKNOWN

# Repeats kept of the sessions made at one line: enough for the judge, bounded for a long loop.
MAX_REPEATS = 1000


class SessionRecord:
    """One session: the line that made it, its graph, how long making it took, its first run and its repeats."""

    def __init__(self, serial, where, graph, init_s):
        self.serial = serial
        self.where = where
        self.graph = graph
        self.init_s = init_s
        self.runs = 0
        self.first_s = None
        self.sites = set()
        self.seen = set()
        self.repeat_s = []

    def ran(self, where, kind, signature, seconds):
        """(serial, first call of this session at the line, a repeat of a set it ran there) of one call."""
        site, key = (*where, kind), (*where, kind, signature)
        first_here, repeat = site not in self.sites, key in self.seen
        self.sites.add(site)
        self.seen.add(key)
        if self.runs == 0:
            self.first_s = seconds
        elif repeat and len(self.repeat_s) < MAX_REPEATS:
            self.repeat_s.append(seconds)
        self.runs += 1
        return self.serial, first_here, repeat


class Sessions:
    """Every session seen, weakly keyed by the session object, and kept by the line that made it."""

    def __init__(self):
        self.by_session = weakref.WeakKeyDictionary()
        self.made = []
        self.serials = itertools.count()

    def made_one(self, session, where, graph, init_s):
        """Note a session made at where, on the graph whose serial is graph, in init_s seconds."""
        record = SessionRecord(next(self.serials), where, graph, init_s)
        self.by_session[session] = record
        self.made.append(record)
        return record

    def of(self, session, graph):
        """The SessionRecord of session; one made before the hooks started is noted at an unknown line."""
        record = self.by_session.get(session)
        return record if record is not None else self.made_one(session, UNKNOWN, graph, None)

    def sessions_list(self):
        """The sessions entries, by the line that made them: how many, on how many graphs, their times."""
        lines = {}
        for r in self.made:
            lines.setdefault(r.where, []).append(r)
        return [{"file": f, "line": line, "made": len(rs), "graphs": len({r.graph for r in rs}),
                 "init_s": [r.init_s for r in rs if r.init_s is not None], "runs": [r.runs for r in rs],
                 "first_s": [r.first_s for r in rs if r.first_s is not None],
                 "repeat_s": [t for r in rs for t in r.repeat_s][:MAX_REPEATS]}
                for (f, line), rs in sorted(lines.items())]
