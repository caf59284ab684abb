"""A tf.function decorating a method (TensorFlow traces a copy per instance), called with three shapes."""
import tensorflow as tf


class Doubler:
    @tf.function
    def __call__(self, v):
        return v * 2


doubler = Doubler()
for n in range(1, 4):
    doubler(tf.ones([n]))
