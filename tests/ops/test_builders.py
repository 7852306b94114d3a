"""The op builders as a whole: every builder is exported from ``ovconform.opset`` with the
signature of ``openvino.opset16``, and the shapes and types they infer agree with OpenVINO's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _op_helpers import P

#: the Convolution shape table of test_convolution, also checked against OpenVINO here
from test_convolution import CONV

from ovconform import opset
from ovconform import opset as ops
from ovconform.ir import PartialShape, Type


def mp(data: Any, s: list[int], k: list[int], pb: list[int] | None = None, pe: list[int] | None = None,
       d: list[int] | None = None, **kw: Any) -> Any:
    n = len(k)
    return opset.max_pool(P(data), s, d or [1] * n, pb or [0] * n, pe or [0] * n, k, **kw)


def ap(data: Any, s: list[int], k: list[int], pb: list[int], pe: list[int], exclude: bool, **kw: Any) -> Any:
    return opset.avg_pool(P(data), s, pb, pe, k, exclude, **kw)


def test_exports() -> None:
    for name in ("matmul", "convolution", "group_convolution", "max_pool", "avg_pool", "reduce_sum",
                 "reduce_mean", "reduce_max", "softmax"):
        assert name in opset.__all__ and callable(getattr(opset, name))



# -- agreement with OpenVINO's own shape inference ------------------------------------------------
# Each construction above is rebuilt with OpenVINO's NodeFactory from our node's IR attributes.
# Our shapes must equal OpenVINO's, except where ours are strictly more precise (listed).

MORE_PRECISE = {  # (op, our shape): what OpenVINO infers there
    ("MaxPool", "[1,3,3..5,1..2]"): "[1,3,?,?]",  # same_* pooling on bounded dims: OV gives up
    ("ReduceSum", "[1..2,1..3,1..4]"): "[?,?,?]",  # keep_dims with unknown axes: each dim is d or 1
    ("ReduceSum", "[1..2,1,?]"): "[?,?,?]",
    ("ReduceSum", "[2,3,4]"): "[...]",  # axes of shape [0]: nothing is reduced
}


def _ov_node(node: Any) -> Any:
    ov = pytest.importorskip("openvino")
    from openvino.utils.node_factory import NodeFactory

    inputs = []
    for src in node.input_values():
        producer = src.get_node()
        if producer.type_name == "Constant":
            inputs.append(ov.opset16.constant(np.asarray(producer.data)).output(0))
        else:
            et = getattr(ov.Type, src.get_element_type().name)
            inputs.append(ov.opset16.parameter(ov.PartialShape(str(src.get_partial_shape())), et).output(0))
    attrs = {k: (v.name if isinstance(v, Type) else v) for k, v in node.attrs.items()}
    return NodeFactory(f"opset{node.version}").create(node.type_name, inputs, attrs)


def _agreement_nodes() -> list[Any]:
    nodes = [opset.matmul(P(a), P(b), ta, tb) for a, b, ta, tb, _ in [
        ([2, 1, 4, 3], [5, 3, 6], False, False, 0), ([3], [2, 3, 4], True, False, 0),
        ([-1, 4, -1], ["2..5", -1, 6], False, False, 0), (["1..3", 4, 3], ["2..5", 3, 6], False, False, 0),
        ([2, 4, 3], [3], False, True, 0), ([-1, 4, 3], [1, 3, 6], False, False, 0)]]
    nodes += [opset.convolution(P(c[0]), P(c[1]), *c[2:7]) for c in CONV]
    nodes += [opset.group_convolution(P([1, 6, 5, 5]), P([-1, 4, 2, 3, 3]), [2, 1], [1, 0], [0, 1], [1, 2]),
              opset.group_convolution(P([1, "2..8", 9]), P([-1, 3, 2, 3]), [1], [0], [0], [1], "same_lower")]
    nodes += [mp([1, 3, "5..9", -1], [2, 2], [2, 2], [1, 1], [1, 1], rounding_type=r) for r in ROUNDINGS]
    nodes += [mp([1, 3, 7, 7], [2, 2], [2, 2], [1, 1], [1, 1], rounding_type=r, version=v)
              for r in ("floor", "ceil") for v in (1, 8)]
    nodes += [mp([1, 1, 6], [2], [2], [1], [0], rounding_type="ceil_torch"),
              mp([1, 3, "5..9", "2..4"], [2, 2], [2, 2], auto_pad="same_upper"),
              ap([1, 3, 7, 7], [2, 2], [3, 3], [1, 1], [1, 1], True, rounding_type="ceil_torch", dilations=[1, 2]),
              ap([1, 3, "4..9", 7], [2, 2], [2, 2], [1, 1], [0, 0], False, rounding_type="ceil", version=1)]
    nodes += [opset.reduce_sum(P([2, 3, 4]), P(axes, Type.i64), keep) for axes, keep in [
        ([2], True), ([2], False), ([], False), ([0], False)]]
    nodes += [opset.reduce_sum(P([2, 1, -1]), P([1], Type.i64), True),
              opset.reduce_max(P([2, 3, 4]), [0, -1], True), opset.reduce_mean(P([2, 3, 4]), np.int64(1))]
    nodes += [opset.softmax(P([2, "1..3"]), -1), opset.softmax(P([2, 3]), 1, version=1), opset.softmax(P([]), -1),
              opset.reduce_sum(P([]), [-1]), opset.reduce_max(P([]), np.array([], np.int64))]
    # not compared: ReduceSum of a scalar with keep_dims, where OpenVINO fails ("out-of-range dimension")
    return nodes


ROUNDINGS = ("floor", "ceil", "ceil_torch")


@pytest.mark.openvino
def test_shapes_agree_with_openvino() -> None:
    checked = 0
    for node in _agreement_nodes():
        theirs = _ov_node(node)
        assert theirs.get_output_size() == node.get_output_size(), node
        for i in range(node.get_output_size()):
            ours_shape = str(node.output(i).get_partial_shape())
            ov_shape = str(theirs.output(i).get_partial_shape()).replace("[...]", "...")
            expected = MORE_PRECISE.get((node.type_name, ours_shape), ov_shape).replace("[...]", "...")
            assert expected == ov_shape and PartialShape(ours_shape).refines(PartialShape(ov_shape)), (
                f"{node}: ours {ours_shape}, OpenVINO {ov_shape}")
            assert theirs.output(i).get_element_type().get_type_name() == node.output(i).get_element_type().name
            checked += 1
    assert checked > 40


@pytest.mark.openvino
@pytest.mark.parametrize("name", ["matmul", "convolution", "group_convolution", "max_pool", "avg_pool",
                                  "reduce_sum", "reduce_mean", "reduce_max", "softmax"])
def test_builder_signatures_follow_openvino_opset16(name: str) -> None:
    import inspect

    ov_opset = pytest.importorskip("openvino.opset16")
    ours = [p for p in inspect.signature(getattr(opset, name)).parameters.values() if p.kind != p.KEYWORD_ONLY]
    theirs = list(inspect.signature(getattr(ov_opset, name)).parameters.values())
    assert [(p.name, p.default) for p in ours] == [(p.name, p.default) for p in theirs]


def test_builders_are_exported_from_the_opset_package() -> None:
    for name in ("reshape", "squeeze", "unsqueeze", "shape_of", "broadcast", "transpose", "concat", "split",
                 "variadic_split", "gather", "strided_slice", "read_value", "assign"):
        assert name in ops.__all__ and callable(getattr(ops, name))
