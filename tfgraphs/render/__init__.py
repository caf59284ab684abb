"""Text (tabulate) and PNG (matplotlib) from saved results, one module per command; no TensorFlow here."""
