"""Quantization ops (OpenVINO's op-spec folder "quantization"): FakeQuantize-1 and FakeConvert-13.

* FakeQuantize-1: ``X``, ``input_low``, ``input_high``, ``output_low``, ``output_high`` of one
  floating-point type broadcast together (``auto_broadcast`` numpy, none or pdpd); ``levels`` >= 2.
* FakeConvert-13: emulate a round trip through an 8-bit float type. Inputs: ``data`` (f32, f16 or
  bf16), ``scale`` and optionally ``shift`` of the same type, with equal shapes that broadcast
  (numpy rules) to the data's shape without changing it. Output: the data's type and shape.
  Attribute ``destination_type`` (``f8e4m3`` or ``f8e5m2``), as OpenVINO writes it.
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import AUTO_BROADCAST, NodeInput, as_output, as_outputs, broadcast_shapes, require

__all__ = ["fake_convert", "fake_quantize"]

@define_op("FakeQuantize", 1, inputs=5, attrs=[AttrSpec("levels", "int"),
                                               AttrSpec("auto_broadcast", "str", "numpy", AUTO_BROADCAST)])
def _infer_fake_quantize(node: Node) -> list[tuple[Type, PartialShape]]:
    types = [node.get_input_element_type(i) for i in range(5)]
    require(all(t == types[0] for t in types),
            f"all five inputs must have one element type; got {[str(t) for t in types]}.")
    require(types[0].is_real(), f"element type {types[0]} is not allowed; FakeQuantize needs a floating-point type.")
    levels = node.attrs["levels"]
    require(levels >= 2, f"attribute 'levels'={levels} is not allowed; it must be at least 2.")
    mode = node.attrs["auto_broadcast"]
    shape = node.get_input_partial_shape(0)
    for i in range(1, 5):
        other = node.get_input_partial_shape(i)
        shape = broadcast_shapes(shape, other, mode)
    return [(types[0], shape)]


def fake_quantize(data: NodeInput, input_low: NodeInput, input_high: NodeInput, output_low: NodeInput,
                  output_high: NodeInput, levels: int, auto_broadcast: str = "NUMPY", name: str | None = None) -> Node:
    """FakeQuantize-1: quantize ``data`` to ``levels`` levels of [input_low, input_high] and map them
    onto [output_low, output_high] (literals take the data's element type)."""
    mode = auto_broadcast.lower() if isinstance(auto_broadcast, str) else auto_broadcast
    return make_node("FakeQuantize", 1, as_outputs(data, input_low, input_high, output_low, output_high),
                     {"levels": levels, "auto_broadcast": mode}, name)


FAKE_TYPES = (Type.f32, Type.f16, Type.bf16)
_NAMES = ("data", "scale", "shift")


@define_op("FakeConvert", 13, inputs=(2, 3), attrs=[AttrSpec("destination_type", "str", "f8e4m3",
                                                             ("f8e4m3", "f8e5m2"))])
def _infer_fake_convert(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et in FAKE_TYPES, f"data (input 0) has element type {et}; it must be f32, f16 or bf16.")
    for i in range(1, node.get_input_size()):
        it = node.get_input_element_type(i)
        require(it == et, f"{_NAMES[i]} (input {i}) has element type {it}; it must match the data ({et}).")
    data = node.get_input_partial_shape(0)
    scale = node.get_input_partial_shape(1)
    if node.get_input_size() == 3:
        shift = node.get_input_partial_shape(2)
        require(scale.compatible(shift), f"scale shape {scale} and shift shape {shift} must be equal.")
    merged = broadcast_shapes(data, scale, "numpy")
    require(data.compatible(merged), f"scale shape {scale} must broadcast to the data shape {data} without "
                                     f"changing it (it gives {merged}).")
    return [(et, data)]


def fake_convert(data: NodeInput, scale: NodeInput, shift: NodeInput | None = None,
                 destination_type: str = "f8e4m3", name: str | None = None) -> Node:
    """FakeConvert-13 (the arguments of ``openvino.opset13.fake_convert``)."""
    inputs = [as_output(data), as_output(scale)]
    if shift is not None:
        inputs.append(as_output(shift))
    dest = destination_type.lower() if isinstance(destination_type, str) else destination_type
    return make_node("FakeConvert", 13, inputs, {"destination_type": dest}, name)
