"""Random valid graphs for the IR tests, and a structural model comparison.

``graph_models()`` draws one Model that combines a few single-op cases from
``ovconform.opcases`` (when any are registered) with chains of elementwise ops over random
element types and partial shapes (static, dynamic, bounded, dynamic rank), multi-output and
state ops, random friendly names, tensor names (commas, backslashes, XML specials, non-ASCII)
and rt_info (nested dicts) on nodes and on the model.

``assert_models_equal(a, b)`` compares two models by structure: ops in topological order,
type, version, attributes, output types, shapes and tensor names, constant data (bit for bit),
friendly names, rt_info, parameters, results and sinks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import Model, Node, PartialShape, Type
from ovconform import opset as ops
from ovconform.errors import ValidationError
from ovconform.ir import ALL_TYPES, Dimension
from ovconform.opcases import all_case_keys, case_strategy

NUMERIC_TYPES = [t for t in ALL_TYPES if t.name != "boolean"]
FLOAT_TYPES = [Type.f32, Type.f16, Type.f64, Type.bf16]
SPECIAL_CHARS = list(',\\\t\n\r&<>"\' ;:/.')

# One character: an XML/IR special, plain ASCII or any character XML 1.0 holds (kept as separate
# branches so hypothesis does not merge them into one uniform alphabet).
_text_chars = st.one_of(
    st.sampled_from(SPECIAL_CHARS),
    st.sampled_from("abcXYZ_0189"),
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Cn", "Co")),
)


def _text(min_size: int, max_size: int) -> st.SearchStrategy[str]:
    return st.lists(_text_chars, min_size=min_size, max_size=max_size).map("".join)


# -- names and rt_info ------------------------------------------------------------------------------

#: A friendly name: any text XML 1.0 can hold.
friendly_names = _text(1, 10)

#: Text that can be a tensor name in IR v11 (it must not end with a backslash).
tensor_name_stems = _text(1, 8).filter(lambda s: not s.endswith("\\"))

rt_keys = _text(1, 8)
rt_leaves = _text(0, 8)
rt_infos = st.dictionaries(rt_keys, st.one_of(rt_leaves, st.dictionaries(rt_keys, rt_leaves, max_size=2)),
                           max_size=3)


# -- shapes and data ----------------------------------------------------------------------------------

@st.composite
def dimensions(draw: st.DrawFn) -> Dimension:
    kind = draw(st.sampled_from(["static", "static", "static", "dynamic", "bounded", "lower", "upper"]))
    if kind == "static":
        return Dimension(draw(st.integers(1, 4)))
    if kind == "dynamic":
        return Dimension()
    lo = draw(st.integers(0, 3))
    if kind == "lower":
        return Dimension(max(lo, 1), -1)
    hi = draw(st.integers(max(lo, 1), 8))
    return Dimension(0 if kind == "upper" else lo, hi)


@st.composite
def partial_shapes(draw: st.DrawFn, allow_dynamic_rank: bool = True) -> PartialShape:
    if allow_dynamic_rank and draw(st.integers(0, 9)) == 0:
        return PartialShape.dynamic()
    return PartialShape(draw(st.lists(dimensions(), min_size=0, max_size=4)))


def random_array(seed: int, shape: tuple[int, ...], et: Type) -> np.ndarray:
    """Seeded data of element type ``et`` (bf16 as uint16 bit patterns, NaN and inf included)."""
    rng = np.random.default_rng(seed)
    if et == Type.boolean:
        return rng.integers(0, 2, shape).astype(bool)
    if et.is_real():
        values = rng.normal(0, 3, shape).astype(np.float32)
        if values.size and rng.integers(0, 4) == 0:
            values.reshape(-1)[0] = rng.choice([np.nan, np.inf, -np.inf, -0.0])
        if et == Type.bf16:
            from ovconform.ir import f32_to_bf16

            return f32_to_bf16(values)
        return values.astype(et.to_dtype())
    info = np.iinfo(et.to_dtype())
    return rng.integers(info.min, info.max, shape, dtype=et.to_dtype(), endpoint=True)


def _const_like(draw: st.DrawFn, shape: PartialShape, et: Type) -> Node:
    """A constant that broadcasts against ``shape`` (numpy rules)."""
    if not shape.has_rank():
        dims: list[int] = []
    else:
        rank = draw(st.integers(0, len(shape)))
        tail = list(shape)[len(shape) - rank:]
        dims = [d.get_length() if d.is_static and draw(st.booleans()) else 1 for d in tail]
    return ops.constant(random_array(draw(st.integers(0, 2**32 - 1)), tuple(dims), et), et)


# -- elementwise chains -------------------------------------------------------------------------------

_UNARY = ["abs", "negative", "exp", "log", "sqrt", "relu", "sigmoid", "tanh", "erf"]
_ARITH = ["add", "subtract", "multiply", "power", "maximum", "minimum", "squared_difference", "floor_mod",
          "mod", "divide"]
_COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
_LOGICAL = ["logical_and", "logical_or", "logical_xor"]


def _step(draw: st.DrawFn, value: Node, et: Type) -> Node:
    """One elementwise op on ``value`` (of numeric type ``et``); the result has type ``et`` again."""
    shape = value.output(0).get_partial_shape()
    kinds = ["unary", "arith", "arith", "clamp", "compare", "convert"] + (["gelu"] if et.is_real() else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "unary":
        return getattr(ops, draw(st.sampled_from(_UNARY)))(value)
    if kind == "arith":
        return getattr(ops, draw(st.sampled_from(_ARITH)))(value, _const_like(draw, shape, et))
    if kind == "clamp":
        lo = draw(st.floats(-10, 10, allow_nan=False))
        return ops.clamp(value, lo, lo + draw(st.floats(0, 10, allow_nan=False)))
    if kind == "gelu":
        return ops.gelu(value, draw(st.sampled_from(["erf", "tanh"])))
    if kind == "compare":
        cond = getattr(ops, draw(st.sampled_from(_COMPARE)))(value, _const_like(draw, shape, et))
        if draw(st.booleans()):
            other = getattr(ops, draw(st.sampled_from(_COMPARE)))(value, _const_like(draw, shape, et))
            cond = getattr(ops, draw(st.sampled_from(_LOGICAL)))(cond, ops.logical_not(other))
        return ops.select(cond, value, _const_like(draw, shape, et))
    middle = draw(st.sampled_from(NUMERIC_TYPES if et in NUMERIC_TYPES else FLOAT_TYPES))
    return ops.convert_like(ops.convert(value, middle), value) if draw(st.booleans()) else ops.convert(
        ops.convert(value, middle), et)


@st.composite
def elementwise_models(draw: st.DrawFn, types: list[Type] | None = None) -> Model:
    """One or two Parameters, a chain of 1-6 elementwise ops, one or more Results."""
    et = draw(st.sampled_from(types or NUMERIC_TYPES))
    params = [ops.parameter(draw(partial_shapes()), et) for _ in range(draw(st.integers(1, 2)))]
    value = _add_or_first(params)
    outputs = []
    for _ in range(draw(st.integers(1, 6))):
        value = _step(draw, value, et)
        if draw(st.integers(0, 3)) == 0:
            outputs.append(value)
    outputs.append(value)
    outputs += _extras(draw, params[0], et)
    return Model(outputs, params)


def _add_or_first(params: list[Node]) -> Node:
    """``params[0] + params[1]`` when their shapes broadcast, else ``params[0]``."""
    if len(params) == 2:
        try:
            return ops.add(params[0], params[1])
        except ValidationError:
            pass
    return params[0]


def _extras(draw: st.DrawFn, param: Node, et: Type) -> list[Any]:
    """Sometimes: a multi-output Split, a constant-only output, a ShapeOf."""
    out: list[Any] = []
    shape = param.output(0).get_partial_shape()
    if draw(st.integers(0, 3)) == 0 and shape.has_rank() and len(shape) and shape[0].is_static:
        n = shape[0].get_length()
        split = ops.split(param, 0, n)
        out += [split.output(i) for i in range(n)]
    if draw(st.integers(0, 4)) == 0:
        t = draw(st.sampled_from(ALL_TYPES))
        out.append(ops.constant(random_array(draw(st.integers(0, 99)), (2, 3), t), t))
    if draw(st.integers(0, 4)) == 0:
        out.append(ops.shape_of(param))
    return out


@st.composite
def state_models(draw: st.DrawFn) -> Model:
    """ReadValue-6 → Add → Assign (a sink) and a Result, with an optional initializing input."""
    et = draw(st.sampled_from(FLOAT_TYPES))
    shape = draw(partial_shapes())
    param = ops.parameter(shape, et)
    init = param if draw(st.booleans()) else None
    rv = ops.read_value(init, "var", et, shape)
    new = ops.add(rv, param) if _compatible(rv, param) else ops.relu(rv)
    sink = ops.assign(new, "var")
    return Model([new], [sink], [param])


def _compatible(a: Node, b: Node) -> bool:
    return a.output(0).get_partial_shape() == b.output(0).get_partial_shape()


# -- combining and decorating -------------------------------------------------------------------------

@st.composite
def op_case_models(draw: st.DrawFn, keys: list[tuple[str, int]] | None = None) -> Model:
    """The model of one registered op case (``keys`` default to all registered cases)."""
    key = draw(st.sampled_from(keys or all_case_keys()))
    return draw(case_strategy(*key)).model


@st.composite
def graph_models(draw: st.DrawFn, types: list[Type] | None = None, op_cases: bool = True) -> Model:
    """Several parts (op cases, elementwise chains, state) merged into one decorated Model.

    :param types: element types of the elementwise chains (default: every numeric type).
    :param op_cases: include models drawn from the registered op cases.
    """
    parts: list[Model] = []
    keys = all_case_keys() if op_cases else []
    if keys:
        parts += [draw(op_case_models(keys)) for _ in range(draw(st.integers(0, 3)))]
    parts += [draw(elementwise_models(types)) for _ in range(draw(st.integers(0 if parts else 1, 2)))]
    if draw(st.integers(0, 3)) == 0:
        parts.append(draw(state_models()))
    model = merge_models(parts, draw(friendly_names))
    decorate(draw, model)
    return model


def merge_models(parts: list[Model], name: str) -> Model:
    """One model with every part's parameters, results and sinks; tensor names and variable ids
    get a ``"<part>:"`` prefix so parts cannot clash."""
    params, results, sinks = [], [], []
    for i, part in enumerate(parts):
        for node in part.get_ordered_ops():
            if node.type_name in ("ReadValue", "Assign"):
                node.attrs["variable_id"] = f"{i}:{node.attrs['variable_id']}"
            if node.type_name != "Result":
                for out in node.outputs():
                    out.set_names({f"{i}:{n}" for n in out.get_names()})
        params += part.get_parameters()
        results += part.get_results()
        sinks += part.get_sinks()
    return Model(results, sinks, params, name)


def decorate(draw: st.DrawFn, model: Model) -> None:
    """Random friendly names, tensor names and rt_info on some nodes, and model rt_info."""
    for k, node in enumerate(model.get_ordered_ops()):
        if draw(st.integers(0, 3)) == 0:
            node.set_friendly_name(draw(friendly_names))
        if node.type_name != "Result" and draw(st.integers(0, 3)) == 0:
            out = node.output(draw(st.integers(0, node.get_output_size() - 1)))
            stems = draw(st.lists(tensor_name_stems, min_size=1, max_size=3))
            out.add_names({f"{stem}#{k}.{j}" for j, stem in enumerate(stems)})
        if draw(st.integers(0, 4)) == 0:
            node.rt_info.update(draw(rt_infos))
    model.rt_info.update(draw(rt_infos))


# -- comparison ---------------------------------------------------------------------------------------

def assert_models_equal(a: Model, b: Model, *, attr_equal: Callable[[Any, Any], bool] | None = None,
                        ignore_model_rt: Iterable[str] = (), node_rt_info: bool = True,
                        output_names: bool = True, friendly_names_: bool = True) -> None:
    """Fail with the first difference between ``a`` and ``b`` (by structure, not by object identity)."""
    same = attr_equal or values_equal
    if friendly_names_:
        assert a.get_friendly_name() == b.get_friendly_name(), "model names differ"
    oa, ob = a.get_ordered_ops(), b.get_ordered_ops()
    assert [n.type_name for n in oa] == [n.type_name for n in ob], "op sequences differ"
    ia, ib = _index(oa), _index(ob)
    for x, y in zip(oa, ob, strict=True):
        where = f"{x!r} vs {y!r}"
        assert (x.type_name, x.version) == (y.type_name, y.version), where
        if friendly_names_:
            assert x.friendly_name == y.friendly_name, f"friendly names differ: {where}"
        assert x.attrs.keys() == y.attrs.keys(), f"attribute names differ: {where}"
        for key in x.attrs:
            assert same(x.attrs[key], y.attrs[key]), f"attribute {key}: {x.attrs[key]!r} != {y.attrs[key]!r} ({where})"
        _assert_ports_equal(x, y, ia, ib, where, output_names)
        if x.type_name == "Constant":
            assert x.data.dtype == y.data.dtype and x.data.shape == y.data.shape, where
            if x.data.dtype == object:  # strings: by value (tobytes() of an object array is its pointers)
                assert x.data.tolist() == y.data.tolist(), f"constant strings differ: {where}"
            else:
                assert x.data.tobytes() == y.data.tobytes(), f"constant data differs: {where}"
        if node_rt_info:
            assert x.rt_info == y.rt_info, f"rt_info differs: {where}: {x.rt_info!r} != {y.rt_info!r}"
    for what in ("get_parameters", "get_results", "get_sinks"):
        assert [ia[id(n)] for n in getattr(a, what)()] == [ib[id(n)] for n in getattr(b, what)()], what
    skip = set(ignore_model_rt)
    assert _without(a.rt_info, skip) == _without(b.rt_info, skip), "model rt_info differs"


def _assert_ports_equal(x: Node, y: Node, ia: dict[int, int], ib: dict[int, int], where: str,
                        output_names: bool) -> None:
    assert x.get_input_size() == y.get_input_size(), where
    for i in range(x.get_input_size()):
        sx, sy = x.input_value(i), y.input_value(i)
        assert (ia[id(sx.node)], sx.index) == (ib[id(sy.node)], sy.index), f"input {i} differs: {where}"
    assert x.get_output_size() == y.get_output_size(), where
    for i in range(x.get_output_size()):
        ox, oy = x.output(i), y.output(i)
        assert ox.get_element_type() == oy.get_element_type(), f"output {i} type: {where}"
        assert ox.get_partial_shape() == oy.get_partial_shape(), \
            f"output {i} shape {ox.get_partial_shape()} != {oy.get_partial_shape()}: {where}"
        if output_names:
            assert ox.get_names() == oy.get_names(), f"output {i} names {ox.get_names()} != {oy.get_names()}: {where}"


def _index(nodes: list[Node]) -> dict[int, int]:
    return {id(n): i for i, n in enumerate(nodes)}


def _without(d: Mapping[str, Any], skip: set[str]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k not in skip}


def values_equal(x: Any, y: Any) -> bool:
    """Equality that treats NaN as equal to NaN and lists element by element."""
    if isinstance(x, float) and isinstance(y, float):
        return (math.isnan(x) and math.isnan(y)) or x == y
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(values_equal(p, q) for p, q in zip(x, y, strict=True))
    if isinstance(x, Model) and isinstance(y, Model):  # a control-flow node's body: by structure
        try:
            assert_models_equal(x, y, output_names=False, friendly_names_=False)
        except AssertionError:
            return False
        return True
    return type(x) is type(y) and x == y


# -- a document real OpenVINO wrote ---------------------------------------------------------------------

#: What ``openvino.save_model(m, path, compress_to_fp16=False)`` (2026.4.1) wrote for a model with
#: a bounded Parameter, escaped tensor names, ReLU/SoftMax-8, LogicalXor (spelled "opset2"), a
#: multi-output Split, ReadValue-6/Assign-6 (a sink), Results with ``output_names``, node
#: ``user_data`` and model rt_info. Port dims are joined on one line, and a ``fused_names``
#: runtime attribute and a port rt_info are added by hand, as OpenVINO writes them.
OV_SAMPLE_XML = """\
<?xml version="1.0"?>
<net name="ov_sample" version="11">
	<layers>
		<layer id="0" name="x" type="Parameter" version="opset1">
			<data shape="?,1..8" element_type="f32" />
			<output>
				<port id="0" precision="FP32" names="x,x\\,alias"><dim>-1</dim><dim>-1</dim></port>
			</output>
		</layer>
		<layer id="1" name="flags" type="Parameter" version="opset1">
			<data shape="2" element_type="boolean" />
			<output>
				<port id="0" precision="BOOL" names="flags"><dim>2</dim></port>
			</output>
		</layer>
		<layer id="2" name="s" type="Parameter" version="opset1">
			<data shape="4" element_type="f32" />
			<output>
				<port id="0" precision="FP32" names="s"><dim>4</dim></port>
			</output>
		</layer>
		<layer id="3" name="Constant_12" type="Const" version="opset1">
			<data element_type="f32" shape="2" offset="0" size="8" />
			<output>
				<port id="0" precision="FP32"><dim>2</dim></port>
			</output>
		</layer>
		<layer id="4" name="ReadValue_13" type="ReadValue" version="opset6">
			<data variable_id="state" variable_type="f32" variable_shape="2" />
			<input>
				<port id="0" precision="FP32"><dim>2</dim></port>
			</input>
			<output>
				<port id="1" precision="FP32" names="Result_24"><dim>2</dim></port>
			</output>
		</layer>
		<layer id="5" name="Constant_15" type="Const" version="opset1">
			<data element_type="f32" shape="2" offset="8" size="8" />
			<output>
				<port id="0" precision="FP32"><dim>2</dim></port>
			</output>
		</layer>
		<layer id="6" name="Add_16" type="Add" version="opset1">
			<data auto_broadcast="numpy" />
			<input>
				<port id="0" precision="FP32"><dim>2</dim></port>
				<port id="1" precision="FP32"><dim>2</dim></port>
			</input>
			<output>
				<port id="2" precision="FP32"><dim>2</dim></port>
			</output>
		</layer>
		<layer id="7" name="Constant_20" type="Const" version="opset1">
			<data element_type="i64" shape="" offset="0" size="8" />
			<output>
				<port id="0" precision="I64" />
			</output>
		</layer>
		<layer id="8" name="Split_21" type="Split" version="opset1">
			<data num_splits="2" />
			<input>
				<port id="0" precision="FP32"><dim>4</dim></port>
				<port id="1" precision="I64" />
			</input>
			<output>
				<port id="2" precision="FP32" names="Result_25"><dim>2</dim></port>
				<port id="3" precision="FP32" names="Result_26"><dim>2</dim></port>
			</output>
		</layer>
		<layer id="9" name="Constant_9" type="Const" version="opset1">
			<data element_type="boolean" shape="2" offset="16" size="2" />
			<output>
				<port id="0" precision="BOOL"><dim>2</dim></port>
			</output>
		</layer>
		<layer id="10" name="LogicalXor_10" type="LogicalXor" version="opset2">
			<data auto_broadcast="numpy" />
			<input>
				<port id="0" precision="BOOL"><dim>2</dim></port>
				<port id="1" precision="BOOL"><dim>2</dim></port>
			</input>
			<output>
				<port id="2" precision="BOOL" names="Result_23"><dim>2</dim></port>
			</output>
		</layer>
		<layer id="11" name="Constant_3" type="Const" version="opset1">
			<data element_type="f32" shape="1" offset="18" size="4" />
			<output>
				<port id="0" precision="FP32"><dim>1</dim></port>
			</output>
		</layer>
		<layer id="12" name="add1" type="Add" version="opset1">
			<data auto_broadcast="numpy" />
			<input>
				<port id="0" precision="FP32"><dim>-1</dim><dim>-1</dim></port>
				<port id="1" precision="FP32"><dim>1</dim></port>
			</input>
			<output>
				<port id="2" precision="FP32" names="sum"><dim>-1</dim><dim>-1</dim></port>
			</output>
		</layer>
		<layer id="13" name="Relu_5" type="ReLU" version="opset1">
			<rt_info>
				<attribute name="fused_names" version="0" value="Relu_5" />
				<user_data name="note" value="relu here" version="" />
			</rt_info>
			<input>
				<port id="0" precision="FP32"><dim>-1</dim><dim>-1</dim></port>
			</input>
			<output>
				<port id="1" precision="FP32"><dim>-1</dim><dim>-1</dim>
					<rt_info>
						<attribute name="layout" version="0" layout="[N,C]" />
					</rt_info>
				</port>
			</output>
		</layer>
		<layer id="14" name="Softmax_6" type="SoftMax" version="opset8">
			<data axis="-1" />
			<input>
				<port id="0" precision="FP32"><dim>-1</dim><dim>-1</dim></port>
			</input>
			<output>
				<port id="1" precision="FP32" names="Result_22"><dim>-1</dim><dim>-1</dim></port>
			</output>
		</layer>
		<layer id="15" name="Assign_17" type="Assign" version="opset6">
			<data variable_id="state" />
			<input>
				<port id="0" precision="FP32"><dim>2</dim></port>
			</input>
			<output>
				<port id="1" precision="FP32"><dim>2</dim></port>
			</output>
		</layer>
		<layer id="16" name="Result_22" type="Result" version="opset1" output_names="Result_22">
			<input>
				<port id="0" precision="FP32"><dim>-1</dim><dim>-1</dim></port>
			</input>
		</layer>
		<layer id="17" name="Result_23" type="Result" version="opset1" output_names="Result_23">
			<input>
				<port id="0" precision="BOOL"><dim>2</dim></port>
			</input>
		</layer>
		<layer id="18" name="Result_24" type="Result" version="opset1" output_names="Result_24">
			<input>
				<port id="0" precision="FP32"><dim>2</dim></port>
			</input>
		</layer>
		<layer id="19" name="Result_25" type="Result" version="opset1" output_names="Result_25">
			<input>
				<port id="0" precision="FP32"><dim>2</dim></port>
			</input>
		</layer>
		<layer id="20" name="Result_26" type="Result" version="opset1" output_names="Result_26">
			<input>
				<port id="0" precision="FP32"><dim>2</dim></port>
			</input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="12" to-port="0" />
		<edge from-layer="1" from-port="0" to-layer="10" to-port="0" />
		<edge from-layer="2" from-port="0" to-layer="8" to-port="0" />
		<edge from-layer="3" from-port="0" to-layer="4" to-port="0" />
		<edge from-layer="4" from-port="1" to-layer="6" to-port="0" />
		<edge from-layer="4" from-port="1" to-layer="18" to-port="0" />
		<edge from-layer="5" from-port="0" to-layer="6" to-port="1" />
		<edge from-layer="6" from-port="2" to-layer="15" to-port="0" />
		<edge from-layer="7" from-port="0" to-layer="8" to-port="1" />
		<edge from-layer="8" from-port="3" to-layer="20" to-port="0" />
		<edge from-layer="8" from-port="2" to-layer="19" to-port="0" />
		<edge from-layer="9" from-port="0" to-layer="10" to-port="1" />
		<edge from-layer="10" from-port="2" to-layer="17" to-port="0" />
		<edge from-layer="11" from-port="0" to-layer="12" to-port="1" />
		<edge from-layer="12" from-port="2" to-layer="13" to-port="0" />
		<edge from-layer="13" from-port="1" to-layer="14" to-port="0" />
		<edge from-layer="14" from-port="1" to-layer="16" to-port="0" />
	</edges>
	<rt_info>
		<info name="OpenVINO Runtime" value="2026.4.1-22982-e213a147257-releases/2026/4" />
		<a>
			<b value="value" />
		</a>
		<info name="with space" value="v" />
	</rt_info>
</net>
"""
OV_SAMPLE_BIN = bytes.fromhex("00000000000000000000803f0000803f01000000c03f")
