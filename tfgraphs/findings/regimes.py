"""The fold-everything regime: whether constant folding replaced the whole network, as measured, and why."""

from tfgraphs.spec import network
from tfgraphs.units import join


def regime_sentences(rows, batch, dtype):
    """Which embedded rows had their whole network replaced by a constant, as measured, against the threshold."""
    out_bytes = network.output_bytes(batch, dtype)
    where = (f"the network's output is {out_bytes:,} bytes, "
             + ("at most" if network.replaced_by_folding(batch, dtype) else "over")
             + f" the classic folder's {network.FOLD_REPLACE_TEXT} replacement threshold")
    folded = [r for r in rows if r.folded]
    kept = [r for r in rows if r.folded is False]
    said = []
    if folded:
        said.append(f"In {join(r.label for r in folded)}, constant folding replaced the whole network by one constant "
                    f"({where}): no Conv2D was left in the graph that ran after the first run, so later runs skip "
                    f"the network and are not compared with a graph that computes it.")
    if kept:
        said.append(f"In {join(r.label for r in kept)}, Conv2D still ran after the first run ({where}): the folder "
                    f"evaluated the network and threw the result away.")
    return said
