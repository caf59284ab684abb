"""The ways of getting the same data into the graph, by name (no TensorFlow here)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    """One input strategy: its name, what it does, and how many copies of X its GraphDef holds."""

    name: str
    summary: str
    copies_in_graph: int
    peak_copies: int        # rough copies of X at the worker's peak besides activations (seen on TF 2.21, CPU)
    default: bool = True

    @property
    def embeds_data(self):
        return self.copies_in_graph > 0


VARIANTS = {
    v.name: v
    for v in (
        Variant("numpy", "NumPy arrays passed straight to the ops", copies_in_graph=1, peak_copies=9),
        Variant("constant", "tf.constant(X)", copies_in_graph=1, peak_copies=9),
        Variant("placeholder", "tf.placeholder fed with feed_dict on every run", copies_in_graph=0,
                peak_copies=3),
        Variant("variable", "non-trainable variable initialised once from a fed placeholder",
                copies_in_graph=0, peak_copies=3),
        # The one-shot iterator keeps a second copy of X inside its dataset function (tests pin this).
        Variant("dataset-embedded", "Dataset.from_tensor_slices(X) with a one-shot iterator",
                copies_in_graph=2, peak_copies=18, default=False),
        Variant("dataset-fed", "Dataset.from_tensor_slices(placeholder), initializable iterator fed once",
                copies_in_graph=0, peak_copies=6, default=False),
    )
}
DEFAULT_VARIANTS = tuple(name for name, v in VARIANTS.items() if v.default)
