"""Stimulus cases of the control-flow op versions (If-8, Loop-5, TensorIterator-1), with dynamic-shape cases (issue #20 gap)."""
