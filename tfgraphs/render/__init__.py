"""Text (tabulate) and PNG (matplotlib) from saved results: the page layout, a module per family of pages, the figures
and the CSV lines; no TensorFlow here."""
