"""The code that runs in a worker process and imports TensorFlow to measure; one JSON document out."""
