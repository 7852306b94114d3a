"""REFERENCE query_model: the seeds' algorithm (transform, map back, kernels, housekeeping rules 5-6)."""

from __future__ import annotations

import numpy as np
import pytest
from device_models import (
    collect_garbage_after_each_test,  # noqa: F401 - autouse fixture
    hide_kernel,
    mixed_model,
    relu_chain_model,
)

import ovconform
from ovconform import opset as ops
from ovconform.errors import PropertyError, ValidationError
from ovconform.host.cache import model_digest
from ovconform.ir import Model
from reference_plugin.plugin import ReferencePlugin


@pytest.fixture
def plugin() -> ReferencePlugin:
    return ReferencePlugin()


def all_names(model: Model) -> set[str]:
    return {n.friendly_name for n in model.get_ordered_ops()}


def test_every_op_of_a_supported_model_maps_to_reference_0(plugin: ReferencePlugin) -> None:
    model = mixed_model()
    before = model_digest(model)
    answer = plugin.query_model(model)
    assert set(answer) == all_names(model)  # fused (r1), folded (c1, c2, cadd) and decomposed (div) ops too
    assert set(answer.values()) == {"REFERENCE.0"}
    assert model_digest(model) == before


def test_the_answer_is_the_same_without_transformations(plugin: ReferencePlugin) -> None:
    model = mixed_model()
    assert plugin.query_model(model, {"DISABLE_TRANSFORMATIONS": True}) == plugin.query_model(model)


def test_query_through_the_core_with_matmul_and_shape_ops() -> None:
    x = ops.parameter([2, 3], np.float32, name="x")
    shape = ops.shape_of(x, name="shape")
    first = ops.gather(shape, ops.constant(np.int64([0]), name="idx"), ops.constant(np.int64(0), name="axis"),
                       name="gather")
    target = ops.concat([first, ops.constant(np.int64([3]), name="three")], 0, name="concat")
    y = ops.matmul(ops.reshape(x, target, False, name="reshape"), ops.constant(np.ones((3, 4), np.float32), name="w"),
                   False, False, name="matmul")
    model = Model([y], [x], "kso")
    answer = ovconform.Core().query_model(model, "REFERENCE")
    assert set(answer) == all_names(model) and set(answer.values()) == {"REFERENCE.0"}


def test_parameter_to_result_and_constant_to_result(plugin: ReferencePlugin) -> None:
    p = ops.parameter([2], np.float32, name="p")
    c = ops.constant(np.float32([1, 2]), name="c")
    model = Model([ops.result(p, name="rp"), ops.result(c, name="rc")], [p], "housekeeping")
    assert set(plugin.query_model(model)) == {"p", "c", "rp", "rc"}


def test_unsupported_ops_and_their_housekeeping_are_left_out(plugin: ReferencePlugin,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    hide_kernel(monkeypatch, "Tanh")
    x = ops.parameter([2], np.float32, name="x")
    y = ops.parameter([2], np.float32, name="y")
    a = ops.relu(x, name="relu_a")
    t = ops.tanh(ops.multiply(a, ops.constant(np.float32(2), name="k"), name="mul"), name="tanh")
    b = ops.relu(t, name="relu_b")
    only_t = ops.tanh(y, name="tanh_y")  # y feeds nothing supported
    results = [ops.result(b, name="res_b"), ops.result(t, name="res_t"), ops.result(only_t, name="res_y"),
               ops.result(ops.relu(x, name="relu_c"), name="res_c")]
    model = Model(results, [x, y], "partial")
    answer = plugin.query_model(model)
    assert set(answer) == {"x", "relu_a", "k", "mul", "relu_b", "res_b", "relu_c", "res_c"}


def test_a_constant_feeding_only_unsupported_ops_is_dropped(plugin: ReferencePlugin,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    hide_kernel(monkeypatch, "Multiply")
    x = ops.parameter([2], np.float32, name="x")
    k = ops.constant(np.float32(3), name="k")
    shared = ops.constant(np.float32(1), name="shared")
    y = ops.add(ops.multiply(x, k, name="mul"), shared, name="add")
    z = ops.multiply(y, shared, name="mul2")
    answer = plugin.query_model(Model([ops.result(y, name="res_y"), ops.result(z, name="res_z")], [x], "consts"))
    # k and x feed only the unsupported mul (rule 6); shared also feeds the supported add (rule 5)
    assert set(answer) == {"shared", "add", "res_y"}


def test_a_fused_op_is_unsupported_when_its_original_type_has_no_kernel(plugin: ReferencePlugin,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    hide_kernel(monkeypatch, "Relu")
    answer = plugin.query_model(relu_chain_model(depth=2))
    assert set(answer) == set()  # x feeds only unsupported ops and the result reads an unsupported one


def test_device_id_and_argument_errors(plugin: ReferencePlugin) -> None:
    assert set(plugin.query_model(relu_chain_model(), {"DEVICE_ID": "0"}).values()) == {"REFERENCE.0"}
    with pytest.raises(PropertyError, match="no such id"):
        plugin.query_model(relu_chain_model(), {"DEVICE_ID": "110"})
    with pytest.raises(PropertyError, match="no such id"):
        ovconform.Core().query_model(relu_chain_model(), "REFERENCE.l0")
    with pytest.raises(ValidationError, match="query_model needs an ovconform Model, not str"):
        plugin.query_model("model.xml")  # type: ignore[arg-type]
