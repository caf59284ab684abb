import tensorflow as tf

x = tf.constant(1.0)
with tf.Session() as sess:
    sess.run(x)
raise ValueError("the script's own error")
