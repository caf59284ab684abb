import sys
print("no TensorFlow here")
sys.exit(3)
