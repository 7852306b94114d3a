"""REFERENCE compile_model: deep copy, the transformation pipeline, errors, and the runtime model."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from device_models import (
    collect_garbage_after_each_test,  # noqa: F401 - autouse fixture
    hide_kernel,
    mixed_expected,
    mixed_model,
    rand,
    relu_chain_model,
    two_input_model,
)

import ovconform
from ovconform import opset as ops
from ovconform.errors import CompileError, InferError
from ovconform.host.cache import model_digest
from ovconform.ir import Model, Type
from reference_plugin import _transformations
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin

EXEC_KEYS = {"layerType", "execOrder", "primitiveType", "execTimeMcs", "originalLayersNames", "runtimePrecision",
             "outputPrecisions", "outputLayouts"}


@pytest.fixture
def plugin() -> ReferencePlugin:
    return ReferencePlugin()


def types(model: Model) -> list[str]:
    return [n.type_name for n in model.get_ordered_ops()]


def infer(compiled: Any, *inputs: np.ndarray) -> list[np.ndarray]:
    return list(compiled.create_infer_request().infer(list(inputs)).values())


# -- the caller's model -------------------------------------------------------------------------
def test_the_callers_model_is_never_mutated(plugin: ReferencePlugin) -> None:
    model = mixed_model()
    before, nodes = model_digest(model), model.get_ordered_ops()
    compiled = plugin.compile_model(model)
    infer(compiled, np.ones((2, 3), np.float32))
    compiled.get_runtime_model()
    plugin.query_model(model)
    assert model_digest(model) == before
    assert model.get_ordered_ops() == nodes and all(not n.rt_info for n in nodes)
    assert types(model) == ["Parameter", "Relu", "Relu", "Constant", "Constant", "Add", "Add", "Constant",
                            "Divide", "Result"]
    assert all(a is not b for a, b in zip(nodes, compiled.model.get_ordered_ops(), strict=False))


def test_ports_keep_the_original_parameters_and_results(plugin: ReferencePlugin) -> None:
    model = mixed_model()
    compiled = plugin.compile_model(model)
    assert compiled.model.get_parameters()[0].friendly_name == "x"
    assert [p.get_names() for p in compiled.inputs] == [{"x"}] and compiled.output().get_names() == {"y"}
    assert compiled.output().get_partial_shape() == model.output().get_partial_shape()
    assert compiled.output().get_node().type_name == "Result"
    assert compiled.outputs[0].get_node().friendly_name == model.get_results()[0].friendly_name


# -- the passes -------------------------------------------------------------------------------------
def test_relu_chains_collapse_and_keep_their_names(plugin: ReferencePlugin) -> None:
    compiled = plugin.compile_model(relu_chain_model(depth=3))
    assert types(compiled.model) == ["Parameter", "Relu", "Result"]
    relu = compiled.model.get_ordered_ops()[1]
    assert relu.friendly_name == "relu_3" and relu.rt_info["fused_names"] == "relu_1,relu_2,relu_3"
    x = rand(np.random.default_rng(0), 2, 3)
    assert np.array_equal(infer(compiled, x)[0], np.maximum(x, 0))


def test_a_shared_inner_relu_stays_for_its_other_consumer(plugin: ReferencePlugin) -> None:
    x = ops.parameter([3], np.float32, name="x")
    inner = ops.relu(x, name="inner")
    outer, other = ops.relu(inner, name="outer"), ops.negative(inner, name="neg")
    compiled = plugin.compile_model(Model([outer, other], [x], "shared"))
    assert types(compiled.model).count("Relu") == 2
    v = np.array([-1, 0, 2], np.float32)
    out = infer(compiled, v)
    assert np.array_equal(out[0], np.maximum(v, 0)) and np.array_equal(out[1], -np.maximum(v, 0))


def test_dead_code_is_disconnected(plugin: ReferencePlugin) -> None:
    compiled = plugin.compile_model(relu_chain_model(depth=2))
    x = compiled.model.get_parameters()[0]
    consumers = [t.get_node().friendly_name for t in x.output(0).get_target_inputs()]
    assert consumers == ["relu_2"]  # relu_1 is no longer attached to the live graph


def test_constant_subgraphs_fold_with_their_names(plugin: ReferencePlugin) -> None:
    x = ops.parameter([2], np.float32, name="x")
    c = ops.multiply(ops.add(ops.constant(np.float32([1, 2]), name="c1"), ops.constant(np.float32(3), name="c2"),
                             name="cadd"), ops.constant(np.float32(2), name="c3"), name="cmul")
    compiled = plugin.compile_model(Model([ops.add(x, c, name="y")], [x], "fold"))
    assert types(compiled.model) == ["Parameter", "Constant", "Add", "Result"]
    folded = compiled.model.get_ordered_ops()[1]
    assert folded.friendly_name == "cmul" and folded.rt_info["fused_names"] == "cadd,cmul"
    assert folded.data.tolist() == [8.0, 10.0]
    assert infer(compiled, np.float32([1, 1]))[0].tolist() == [9.0, 11.0]


def test_static_shape_of_folds_and_feeds_reshape(plugin: ReferencePlugin) -> None:
    x = ops.parameter([2, 3], np.float32, name="x")
    y = ops.reshape(ops.relu(x, name="r"), ops.shape_of(ops.transpose(x, [1, 0]), name="shape"), False, name="rs")
    compiled = plugin.compile_model(Model([y], [x], "shape_fold"))
    assert "ShapeOf" not in types(compiled.model) and "Transpose" not in types(compiled.model)
    v = rand(np.random.default_rng(1), 2, 3)
    assert np.array_equal(infer(compiled, v)[0], np.maximum(v, 0).reshape(3, 2))


def test_a_constant_that_fails_to_fold_fails_at_run_time(plugin: ReferencePlugin) -> None:
    x = ops.parameter([2], np.int32, name="x")
    bad = ops.divide(ops.constant(np.int32([4, 4]), name="n"), ops.constant(np.int32([2, 0]), name="z"), name="div0")
    compiled = plugin.compile_model(Model([ops.add(x, bad, name="y")], [x], "div0"))
    assert "Divide" in types(compiled.model)
    with pytest.raises(InferError, match="div0"):
        infer(compiled, np.int32([1, 1]))


@pytest.mark.parametrize(("divisor", "decomposed"), [
    (4.0, True), (0.5, True), ([2.0, -0.25, 1024.0], True), (3.0, False), ([2.0, 3.0, 4.0], False), (0.0, False),
    (2.0 ** -127, False),  # subnormal divisor (its reciprocal 2**127 is normal): kept
    (2.0 ** 127, False),  # its reciprocal 2**-127 is subnormal: kept
    (float("inf"), False),
])
def test_divide_by_a_constant_decomposes_only_where_exact(plugin: ReferencePlugin, divisor: Any,
                                                          decomposed: bool) -> None:
    x = ops.parameter([3], np.float32, name="x")
    y = ops.divide(x, ops.constant(np.float32(divisor), name="d"), name="div")
    compiled = plugin.compile_model(Model([y], [x], "div"))
    node = compiled.model.get_results()[0].input_value(0).node
    assert node.type_name == ("Multiply" if decomposed else "Divide") and node.friendly_name == "div"
    v = np.array([1.0, -3.7, 1e-30], np.float32)
    with np.errstate(all="ignore"):
        assert np.array_equal(infer(compiled, v)[0], v / np.float32(divisor), equal_nan=True)


def test_divide_by_tiny_power_of_two_is_decomposed_when_both_are_normal(plugin: ReferencePlugin) -> None:
    x = ops.parameter([2], np.float32, name="x")
    tiny = np.float32(2.0 ** -126)  # normal, and its reciprocal 2**126 is normal too
    compiled = plugin.compile_model(Model([ops.divide(x, ops.constant(tiny))], [x], "tiny"))
    assert "Multiply" in types(compiled.model)
    v = np.float32([3e-38, 1.0])
    assert np.array_equal(infer(compiled, v)[0], v / tiny)


def test_integer_and_variable_divides_are_kept(plugin: ReferencePlugin) -> None:
    a = ops.parameter([2], np.int32, name="a")
    b = ops.parameter([2], np.float32, name="b")
    c = ops.parameter([2], np.float32, name="c")
    model = Model([ops.divide(a, ops.constant(np.int32(2)), name="idiv"), ops.divide(b, c, name="fdiv")], [a, b, c])
    compiled = plugin.compile_model(model)
    assert types(compiled.model).count("Divide") == 2
    out = infer(compiled, np.int32([7, -7]), np.float32([1, 1]), np.float32([3, 7]))
    assert out[0].tolist() == [3, -4] and np.array_equal(out[1], np.float32([1, 1]) / np.float32([3, 7]))


def test_under_f16_the_reciprocal_must_fit_float16(plugin: ReferencePlugin) -> None:
    x = ops.parameter([2], np.float32, name="x")
    model = Model([ops.divide(x, ops.constant(np.float32(2.0 ** -20)), name="div")], [x], "f16div")
    assert "Multiply" in types(plugin.compile_model(model).model)
    f16 = plugin.compile_model(model, {"INFERENCE_PRECISION_HINT": "f16"})
    assert "Divide" in types(f16.model)  # 2**20 overflows float16: x * inf would differ from x / 2**-20 at 0
    reference = plugin.compile_model(model, {"INFERENCE_PRECISION_HINT": "f16", "DISABLE_TRANSFORMATIONS": True})
    v = np.float32([0.0, 1e-3])
    assert np.array_equal(infer(f16, v)[0], infer(reference, v)[0])


@pytest.mark.parametrize("precision", ["f32", "f16"])
def test_transformations_never_change_results(plugin: ReferencePlugin, precision: str) -> None:
    rng = np.random.default_rng(2)
    x = ops.parameter([4, 3], np.float32, name="x")
    w = ops.divide(ops.add(ops.constant(rand(rng, 3, 5), name="w0"), ops.constant(np.float32(0.1), name="w1")),
                   ops.constant(np.float32(8.0), name="w8"), name="wdiv")
    h = ops.relu(ops.relu(ops.matmul(x, w, False, False, name="mm"), name="r1"), name="r2")
    y = ops.softmax(ops.divide(h, ops.constant(np.float32(0.25)), name="scale"), 1, name="sm")
    model = Model([y], [x], "equivalence")
    fast = plugin.compile_model(model, {"INFERENCE_PRECISION_HINT": precision})
    plain = plugin.compile_model(model, {"INFERENCE_PRECISION_HINT": precision, "DISABLE_TRANSFORMATIONS": True})
    assert len(fast.model.get_ordered_ops()) < len(plain.model.get_ordered_ops())
    for _ in range(3):
        v = rand(rng, 4, 3) * 4
        assert np.array_equal(infer(fast, v)[0], infer(plain, v)[0])


def test_disable_transformations_keeps_the_graph(plugin: ReferencePlugin) -> None:
    model = mixed_model()
    compiled = plugin.compile_model(model, {"DISABLE_TRANSFORMATIONS": True})
    assert types(compiled.model) == types(model)
    assert all("fused_names" not in n.rt_info for n in compiled.model.get_ordered_ops())
    x = rand(np.random.default_rng(3), 2, 3)
    assert np.allclose(infer(compiled, x)[0], mixed_expected(x), rtol=0, atol=0)


# -- errors ---------------------------------------------------------------------------------------
def test_a_failing_pass_becomes_a_compile_error(plugin: ReferencePlugin, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(model: Model, ctx: Any) -> int:
        raise ZeroDivisionError("pass table broken")

    monkeypatch.setattr(_transformations, "PIPELINE", (("Broken", broken),))
    with pytest.raises(CompileError, match=r"transformation 'Broken' failed on model 'mixed': ZeroDivisionError"):
        plugin.compile_model(mixed_model())
    plugin.compile_model(mixed_model(), {"DISABLE_TRANSFORMATIONS": True})  # no pass runs


def test_an_op_without_kernel_is_a_compile_error(plugin: ReferencePlugin, monkeypatch: pytest.MonkeyPatch) -> None:
    hide_kernel(monkeypatch, "Multiply")
    with pytest.raises(CompileError, match=r"cannot compile model 'two_input': .*no kernel for op type 'Multiply'"):
        plugin.compile_model(two_input_model())


def test_compile_errors_through_the_core() -> None:
    core = ovconform.Core()
    with pytest.raises(ovconform.errors.ValidationError, match="needs an ovconform Model, not int"):
        core.get_plugin("REFERENCE").compile_model(3)
    compiled = core.compile_model(mixed_model(), "REFERENCE", {"PERF_COUNT": True})
    assert isinstance(compiled, ReferenceCompiledModel)


# -- the runtime model ----------------------------------------------------------------------------
def test_runtime_model_carries_execution_info(plugin: ReferencePlugin) -> None:
    compiled = plugin.compile_model(mixed_model(), {"PERF_COUNT": True})
    runtime = compiled.get_runtime_model()
    nodes = runtime.get_ordered_ops()
    assert all(EXEC_KEYS <= set(n.rt_info) for n in nodes)
    assert [n.rt_info["execOrder"] for n in nodes] == [str(i) for i in range(len(nodes))]
    assert [n.rt_info["layerType"] for n in nodes] == types(compiled.model)
    assert {n.rt_info["execTimeMcs"] for n in nodes} == {"not_executed"}
    assert {n.rt_info["primitiveType"] for n in nodes} == {"ref_f32"}
    relu = next(n for n in nodes if n.type_name == "Relu")
    assert relu.rt_info["originalLayersNames"] == "r1,r2" and relu.rt_info["outputPrecisions"] == "f32"
    assert relu.rt_info["outputLayouts"] == "ab" and "fused_names" not in relu.rt_info
    originals = {name for n in nodes for name in n.rt_info["originalLayersNames"].split(",")}
    assert {"x", "r1", "r2", "cadd", "add", "div"} <= originals
    infer(compiled, np.ones((2, 3), np.float32))
    after = compiled.get_runtime_model().get_ordered_ops()
    assert all(float(n.rt_info["execTimeMcs"]) >= 0 for n in after)
    assert runtime.get_ordered_ops()[1].rt_info["execTimeMcs"] == "not_executed"  # an earlier copy stays
    compiled.set_property({"PERF_COUNT": False})
    assert {n.rt_info["execTimeMcs"] for n in compiled.get_runtime_model().get_ordered_ops()} == {"not_executed"}


def test_runtime_model_is_a_copy_with_unique_names_and_serializes(plugin: ReferencePlugin) -> None:
    x = ops.parameter([2], np.float32, name="same")
    y = ops.add(ops.relu(x, name="same"), ops.constant(np.float32(1), name="same_1"), name="same")
    compiled = plugin.compile_model(Model([y], [x], "dupes"))
    runtime = compiled.get_runtime_model()
    names = [n.friendly_name for n in runtime.get_ordered_ops()]
    assert len(set(names)) == len(names) and names[:2] == ["same", "same_2"]
    assert runtime.get_ordered_ops()[1].rt_info["originalLayersNames"] == "same"
    runtime.get_ordered_ops()[1].rt_info["layerType"] = "changed"
    assert compiled.get_runtime_model().get_ordered_ops()[1].rt_info["layerType"] == "Relu"
    assert compiled.get_runtime_model() is not compiled.get_runtime_model()
    xml, weights = ovconform.serialize(runtime)
    back = ovconform.read_model(xml, weights)
    assert [n.friendly_name for n in back.get_ordered_ops()] == names
    assert back.get_ordered_ops()[2].rt_info["originalLayersNames"] == "same_1"
    assert back.inputs[0].get_element_type() == Type.f32 and back.outputs[0].get_partial_shape() == [2]


def test_runtime_precision_under_f16(plugin: ReferencePlugin) -> None:
    x = ops.parameter([2], np.float32, name="x")
    i = ops.parameter([2], np.int32, name="i")
    model = Model([ops.relu(x, name="r"), ops.negative(i, name="n")], [x, i], "prec")
    runtime = plugin.compile_model(model, {"INFERENCE_PRECISION_HINT": "f16"}).get_runtime_model()
    by_name = {n.friendly_name: n.rt_info for n in runtime.get_ordered_ops()}
    assert by_name["r"]["runtimePrecision"] == "f16" and by_name["r"]["outputPrecisions"] == "f32"
    assert by_name["r"]["primitiveType"] == "ref_f16"
    assert by_name["n"]["runtimePrecision"] == "i32"


def test_replacements_keep_the_user_rt_info(plugin: ReferencePlugin) -> None:
    x = ops.parameter([2], np.float32, name="x")
    div = ops.divide(x, ops.constant(np.float32(2)), name="div")
    div.rt_info["note"] = "keep me"
    folded = ops.add(ops.constant(np.float32(1)), ops.constant(np.float32(2)), name="folded")
    folded.rt_info["origin"] = "user"
    compiled = plugin.compile_model(Model([div, folded], [x], "rt_info"))
    mul, const = (r.input_value(0).node for r in compiled.model.get_results())
    assert (mul.type_name, mul.rt_info["note"]) == ("Multiply", "keep me")
    assert (const.type_name, const.rt_info["origin"]) == ("Constant", "user")
