"""The ways of getting the same data into the graph, by name (no TensorFlow here)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    """One input strategy: its name, what it does, and whether it embeds X in the GraphDef."""

    name: str
    summary: str
    embeds_data: bool
    default: bool = True


VARIANTS = {
    v.name: v
    for v in (
        Variant("numpy", "NumPy arrays passed straight to the ops", embeds_data=True),
        Variant("constant", "tf.constant(X)", embeds_data=True),
        Variant("placeholder", "tf.placeholder fed with feed_dict on every run", embeds_data=False),
        Variant("variable", "non-trainable variable initialised once from a fed placeholder", embeds_data=False),
        Variant("dataset-embedded", "Dataset.from_tensor_slices(X) with a one-shot iterator",
                embeds_data=True, default=False),
        Variant("dataset-fed", "Dataset.from_tensor_slices(placeholder), initializable iterator fed once",
                embeds_data=False, default=False),
    )
}
DEFAULT_VARIANTS = tuple(name for name, v in VARIANTS.items() if v.default)
