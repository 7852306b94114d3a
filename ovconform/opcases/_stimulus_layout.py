"""Stimulus cases of the layout and index op versions (Gather, GatherND, DepthToSpace, Split, Reshape, Range, OneHot, ...) (issue #20 gap)."""
