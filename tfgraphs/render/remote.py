"""The remote-sessions section of a compare page: bytes over the wire and times per target (no TensorFlow here)."""

from tfgraphs.records.stats import Summary
from tfgraphs.render.page import Table, time_unit
from tfgraphs.units import fmt_int, sig3


def remote_table(report):
    """Every ok row with its target, fetch, bytes per run and times, in one time unit."""
    ok = [r for r in report.rows if r.ok]
    unit = time_unit([v for r in ok for v in (r.session_s, r.first_run_s, *r.runs_s)])
    u = unit[0]
    headers = ("row", "target", "fed / run", "fetched / run", "graph bytes", f"session {u}", f"first {u}",
               f"later median {u}", "n", "X on", "between tasks")
    body = []
    for r in ok:
        s = Summary.of(r.runs_s)
        body.append((r.label, r.target or "in-process", fmt_int(r.bytes_fed_per_run), fmt_int(r.bytes_fetched_per_run),
                     fmt_int(r.graph_bytes), sig3(r.session_s / unit[1]), sig3(r.first_run_s / unit[1]),
                     sig3(s.median / unit[1]), str(s.n), r.data_device, fmt_int(r.traced_between_tasks_bytes)))
    table = Table(headers, tuple(body), keys=2, wrap=((1, 28), (9, 24)))
    remote = any(r.remote for r in ok)
    legend = (f"Times in {u}. target = "
              + ("the grpc:// URL the session ran on (a fresh server per worker for --target local), or in-process"
                 if remote else "in-process: every row's session ran in this worker")
              + "; fed / fetched = bytes fed to and fetched from the session on every run"
              + (" (sent over gRPC to a remote one; in-process they are handed over in memory)" if remote else
                 ", handed over in memory in-process")
              + "; graph bytes = the serialized GraphDef's size"
              + (" (a remote session is sent it at its first run)" if remote else "")
              + ("; X on = the device that held X in a two-task cluster; between tasks = bytes one traced run "
                 "received from another task (RecvTensor)" if any(r.network_device for r in ok) else
                 "; X on and between tasks are for a two-task cluster (--target local:ps,worker), none here")
              + "." + (" On 127.0.0.1 these bytes are real, the bandwidth is not a network's." if remote else ""))
    return table, legend
