"""Reading and sizing TensorFlow GraphDef protobufs: graph files, Const tensors (nothing is run)."""
