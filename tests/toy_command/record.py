"""What the toy command measured, as the record its saved document is read back into."""

from dataclasses import MISSING, dataclass

from tfgraphs.records.one_record import OneRecord
from tfgraphs.records.schema import GRAPH_BYTES, ranged

# What the worker measures, beside the envelope every worker's document has.
MEASURED = ("graph_bytes", "tensor_content_bytes", "fetched_sum", "run_s")


@dataclass(frozen=True)
class Toy(OneRecord):
    """One constant of `size` float32 values: its GraphDef's bytes, its tensor's bytes and one sess.run."""

    size: int = ranged(least=1, default=MISSING)
    status: str = "ok"
    error: str | None = None
    graph_bytes: int | None = ranged(**GRAPH_BYTES)
    # The Const's tensor_content, size x 4 bytes; TensorFlow keeps a single value in float_val instead, so size 1 has 0.
    tensor_content_bytes: int | None = ranged()
    fetched_sum: float | None = ranged()          # the sum of what sess.run returned, 0 + 1 + ... + size-1
    run_s: float | None = ranged()
    worker_start: str | None = None

    command = "toy"

    @property
    def ok(self):
        return self.status == "ok"

    @property
    def rows(self):
        """The one measured row, as Report.rows lists it."""
        return ({k: getattr(self, k) for k in ("size", *MEASURED)},)
