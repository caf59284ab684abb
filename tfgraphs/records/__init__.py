"""What a run produced, with no TensorFlow: rows and each command's results, the JSON documents they are saved as and
read back from, and the judge with its statistics."""
