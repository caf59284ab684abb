"""Render a toy run: what was measured, where, and the numbers."""

from tfgraphs.render.page import WIDTH, Table, page
from tfgraphs.units import fmt_int, sig3


def render(toy, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The toy's result as text: a header, one table of its numbers, and why it failed if it did."""
    m = toy.machine
    head = (f"toy: tf.constant of {toy.size:,} float32 values in a TF1 graph, in a {toy.worker_start or '?'} worker\n"
            f"TensorFlow {toy.tf_version}, {m.get('cpu_count')} x {m.get('cpu_model', '?')}")
    if not toy.ok:
        return page(head, failed=[f"FAILED: {toy.error}"], fmt=fmt, width=width, verbose=verbose)
    rows = (("GraphDef bytes", fmt_int(toy.graph_bytes)), ("tensor content bytes", fmt_int(toy.tensor_content_bytes)),
            ("sum fetched", f"{toy.fetched_sum:g}"), ("one sess.run ms", sig3(toy.run_s * 1e3)))
    legend = "tensor content = the Const's values as stored in the GraphDef: 4 bytes per float32."
    return page(head, [("Measured", Table(("", ""), rows), legend)], fmt=fmt, width=width, verbose=verbose)
