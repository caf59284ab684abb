"""The remote-session options compare and explain share, checked before anything is measured."""

from tfgraphs.api.options import names, positive, switch, text
from tfgraphs.errors import UsageError
from tfgraphs.jobs import servers
from tfgraphs.jobs.remote import PLACES
from tfgraphs.spec.remote import FETCHES, parse_target


def remote_options(target="", baseline=True, returns="output", place="data=ps", connect_timeout=10.0):
    """Config fields for a remote target; UsageError for a bad option or an unreachable target, before any work."""
    where = parse_target(text("target", target or ""))
    wait_s = positive("connect_timeout", connect_timeout)
    job = place.partition("data=")[2] if isinstance(place, str) and place.startswith("data=") else ""
    if job not in PLACES:
        raise UsageError(f"--place {place!r} must be data=ps or data=worker")
    if place != "data=ps" and len(where.jobs) < 2:
        raise UsageError("--place needs --target local:ps,worker, the only cluster with a second task")
    if not switch("baseline", baseline) and not where.remote:
        raise UsageError("--no-baseline needs --target: without one only in-process rows are measured")
    fetches = names("returns", returns, FETCHES, "kind of result")
    if where.remote and not where.starts_servers:
        servers.check_reachable(where, wait_s)
    return {"target": where.spec, "baseline": baseline, "fetches": fetches, "place": job,
            "connect_timeout": wait_s}
