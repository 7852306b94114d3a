"""Col2Im-15 and ExtractImagePatches-3.

Col2Im-15 sums sliding-window columns ``[N, C·kh·kw, L]`` (or ``[C·kh·kw, L]``) back into images
``[N, C, H, W]`` of ``output_size``, with strides, dilations and pads as in a 2D convolution.
ExtractImagePatches-3 has ``sizes``, ``strides``, ``rates`` and ``auto_pad`` (valid, same_upper,
same_lower), the attribute spellings ``openvino.save_model`` writes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require
from ovconform.opset._inputs import Infer, _ints, int_vector, require_rank
from ovconform.opset._window import check_window_attrs, dilated

__all__ = ["col2im", "extract_image_patches"]

def col2im_blocks(size: Sequence[int], kernel: Sequence[int], attrs: dict[str, Any]) -> list[int]:
    """Number of sliding blocks per spatial axis (each must be positive)."""
    out = []
    for i in range(2):
        span = size[i] + attrs["pads_begin"][i] + attrs["pads_end"][i] - dilated(kernel[i], attrs["dilations"][i])
        require(span >= 0, f"output_size {list(size)} with pads and kernel {list(kernel)} (dilations "
                           f"{attrs['dilations']}) hold no block on axis {i}.")
        out.append(span // attrs["strides"][i] + 1)
    return out


@define_op("Col2Im", 15, inputs=3, attrs=[AttrSpec("strides", "ints", [1, 1]), AttrSpec("dilations", "ints", [1, 1]),
                                          AttrSpec("pads_begin", "ints", [0, 0]), AttrSpec("pads_end", "ints", [0, 0])])
def _infer_col2im(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, f"data element type {et} is not allowed; Col2Im needs a numeric type.")
    check_window_attrs(2, node.attrs, ("strides", "dilations", "pads_begin", "pads_end"), may_be_empty=())
    data = node.get_input_partial_shape(0)
    size = int_vector(node, 1, "output_size", 2)
    kernel = int_vector(node, 2, "kernel_size", 2)
    for v, what in ((size, "output_size"), (kernel, "kernel_size")):
        require(v is None or (len(v) == 2 and bool(np.all(v > 0))), f"{what} {v} must hold 2 positive values.")
    if not data.has_rank():
        return [(et, PartialShape.dynamic())]
    require(len(data) in (2, 3), f"data shape {data} must have rank 2 ([C·kh·kw, L]) or 3 ([N, C·kh·kw, L]).")
    channels = Dimension()
    if kernel is not None:
        volume = math.prod(int(k) for k in kernel)
        cols = data[-2]
        if cols.is_static:
            require(cols.get_length() % volume == 0, f"data shape {data}: dim -2 ({cols}) is not a multiple of the "
                                                     f"kernel volume {volume} (kernel_size {kernel.tolist()}).")
            channels = Dimension(cols.get_length() // volume)
        if size is not None:
            blocks = math.prod(col2im_blocks(size.tolist(), kernel.tolist(), node.attrs))
            require(data[-1].compatible(blocks), f"data shape {data}: dim -1 must be the number of blocks {blocks} "
                                                 f"for output_size {size.tolist()} and kernel_size {kernel.tolist()}.")
    spatial = [Dimension(int(s)) for s in size] if size is not None else [Dimension(), Dimension()]
    lead = [data[0]] if len(data) == 3 else []
    return [(et, PartialShape([*lead, channels, *spatial]))]


def col2im(data: NodeInput, output_size: NodeInput, kernel_size: NodeInput, strides: Sequence[int] | None = None,
           dilations: Sequence[int] | None = None, pads_begin: Sequence[int] | None = None,
           pads_end: Sequence[int] | None = None, name: str | None = None) -> Node:
    """Col2Im-15 (literal sizes become i64 Constants)."""
    attrs = {"strides": strides or [1, 1], "dilations": dilations or [1, 1], "pads_begin": pads_begin or [0, 0],
             "pads_end": pads_end or [0, 0]}
    return make_node("Col2Im", 15, [as_output(data), _ints(output_size), _ints(kernel_size)], attrs, name)


PAD_TYPES = ("valid", "same_upper", "same_lower")


def _positive_pair(node: Node, name: str) -> list[int]:
    values = node.attrs[name]
    require(len(values) == 2 and all(v > 0 for v in values),
            f"attribute {name!r} is {values}; it must be two positive integers [rows, cols].")
    return list(values)


def patches_out_dim(size: Dimension, k: int, s: int, r: int, auto_pad: str) -> Dimension:
    """The output rows/cols of ExtractImagePatches for input rows/cols ``size``."""
    if not size.is_static:
        return Dimension()
    n = size.get_length()
    if auto_pad == "valid":
        eff = r * (k - 1) + 1
        return Dimension(max(0, (n - eff) // s + 1) if n >= eff else 0)
    return Dimension(-(-n // s))


@define_op("ExtractImagePatches", 3, inputs=1, attrs=[
    AttrSpec("sizes", "ints"), AttrSpec("strides", "ints"), AttrSpec("rates", "ints"),
    AttrSpec("auto_pad", "str", "valid", PAD_TYPES)])
def _infer_extract_image_patches(node: Node) -> Infer:
    sizes, strides, rates = (_positive_pair(node, n) for n in ("sizes", "strides", "rates"))
    shape = require_rank(node, 0, 4, "data")
    pad = node.attrs["auto_pad"]
    dims = [shape[0], shape[1] * (sizes[0] * sizes[1]),
            patches_out_dim(shape[2], sizes[0], strides[0], rates[0], pad),
            patches_out_dim(shape[3], sizes[1], strides[1], rates[1], pad)]
    return [(node.get_input_element_type(0), PartialShape(dims))]


def extract_image_patches(image: NodeInput, sizes: list[int], strides: list[int], rates: list[int], auto_pad: str,
                          name: str | None = None) -> Node:
    """ExtractImagePatches-3 over an NCHW ``image``: output [N, C*sizes[0]*sizes[1], out_rows, out_cols]."""
    attrs = {"sizes": list(sizes), "strides": list(strides), "rates": list(rates),
             "auto_pad": auto_pad.lower() if isinstance(auto_pad, str) else auto_pad}
    return make_node("ExtractImagePatches", 3, [as_output(image)], attrs, name)
