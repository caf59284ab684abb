"""The fold-everything regime: whether constant folding replaced the whole network, read from the graph that ran."""

from tfgraphs.findings.evidence import rests_on
from tfgraphs.spec.kernels import named
from tfgraphs.units import join


@rests_on("partition_computes", "replaced_by_const")
def regime_sentences(rows):
    """Which rows had their whole network replaced by a constant, from the partition graphs of an untimed run."""
    folded = [r for r in rows if not r.partition_computes["Conv2D"]]
    kept = [r for r in rows if r.partition_computes["Conv2D"]]
    said = []
    if folded:
        consts = sorted({n for r in folded for n in r.replaced_by_const})
        said.append(f"In {join(r.label for r in folded)}, constant folding replaced the network: the graph that ran "
                    f"after the first run holds no Conv2D"
                    + (f"; the Const {join(consts)}, made by folding, stands in its place" if consts else "")
                    + " (partition graphs). Later runs skip the network, so they are not compared with a graph "
                      "that computes it.")
    if kept:
        conv = named("Conv2D", {t for r in kept for t in r.partition_ops or ()})   # as the graph that ran names it
        said.append(f"In {join(r.label for r in kept)}, the graph that ran after the first run still holds {conv} "
                    f"(partition graphs): the network was not folded, and later runs compute it.")
    return said
