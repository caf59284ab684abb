"""The logged first run's stages, timed by TensorFlow's own log lines: where it went, and what ran twice or again."""

from tfgraphs.findings.evidence import rests_on
from tfgraphs.findings.inside import row_name
from tfgraphs.spec import tflog
from tfgraphs.spec.kernels import NETWORK_OPS, runs_as
from tfgraphs.units import fmt_s, join

SHOWN = 3   # stages named per row in a sentence, longest first


def logged_spans(row):
    """The stages of the row's logged first run (spec.tflog.spans of its log), or [] for a log not marked at both
    ends of the run (documents older than the marks)."""
    log = row.first_run_log
    return tflog.spans(log) if log and row.logged_first_run_s and tflog.marked(log) else []


def _share(seconds, row):
    return f"{100 * seconds / row.logged_first_run_s:.0f}%"


@rests_on("first_run_log", "logged_first_run_s")
def where_it_went(rows):
    """Per default-config row: the share of the logged first run its log's stages span, the longest named."""
    said = []
    for r in rows:
        spans = logged_spans(r) if r.preset == "default" else []
        if not spans:
            continue
        covered = sum(s["seconds"] for s in spans)
        longest = sorted(spans, key=lambda s: -s["seconds"])[:SHOWN]
        said.append(f"{row_name(r)}: TensorFlow's log lines span {_share(covered, r)} of the logged first run's "
                    f"{fmt_s(r.logged_first_run_s)}; its longest stages: "
                    + join(f"{s['stage']} {fmt_s(s['seconds'])} ({_share(s['seconds'], r)})" for s in longest)
                    + " (each from the line that opens it to the line that opens the next).")
    return said


@rests_on("first_run_log", "partition_computes")
def network_ran_twice(rows):
    """Rows whose executor logged the network's ops both in the classic folder's run (step -1) and in the run."""
    said = []
    for r in rows:
        spans = {s["stage"]: s for s in logged_spans(r)}
        ran = [s for name, s in spans.items() if name.startswith("the run (step")]
        if r.preset != "default" or tflog.FOLDER_RUN not in spans or not ran or not r.partition_computes["Conv2D"]:
            continue
        folder = tflog.processed(r.first_run_log, -1)
        ops = [op for op in NETWORK_OPS if any(runs_as(t, op) for t in folder)]
        if "Conv2D" not in ops:
            continue
        said.append(f"{row_name(r)}: the network ran twice in its first run. The executor logged {join(ops)} in the "
                    f"classic folder's run of the constant graph ({fmt_s(spans[tflog.FOLDER_RUN]['seconds'])}"
                    f" to the next stage), and the graph that ran still holds Conv2D (partition graphs), so they ran "
                    f"again in {ran[0]['stage']} ({fmt_s(ran[0]['seconds'])}) (executor.cc, step -1 being "
                    f"LogMemory::CONSTANT_FOLDING_STEP_ID).")
    return said


@rests_on("first_run_log", "init_s")
def optimized_again(rows):
    """Rows whose first run, after the initializer's run in the same session, logged BuildGraph and the folder again."""
    said = []
    for r in rows:
        stages = [s["stage"] for s in logged_spans(r)]
        if r.preset != "default" or r.init_s is None or "BuildGraph and Grappler" not in stages:
            continue
        again = [s for s in ("BuildGraph and Grappler", "partitioning", tflog.FOLDING) if s in stages]
        said.append(f"{row_name(r)}: its first run came after the initializer's run in the same session, and "
                    f"TensorFlow logged {join(again)} again: a run with other fetches gets executors of its own, "
                    f"optimized anew (graph_execution_state.cc, graph_partition.cc, constant_folding.cc).")
    return said
