"""The pattern catalogue (:mod:`ovconform.graphs.patterns`) and the fuzz's graphs
(:mod:`ovconform.graphs.fuzz`) are what they claim: every pattern builds, holds the ops it is named
after, reaches realistic sizes, its static variant infers twice (new values) and its dynamic variant runs
two shapes through dynamic Parameters; drawn graphs are valid and run on REFERENCE; IR round trips keep them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import ovconform
from ovconform.graphs import GraphCase, fuzz, patterns
from ovconform.suites import _op_runner as R

#: pattern -> op types it must hold.
HOLDS = {
    "conv_bias_relu": {"Convolution", "Add", "Relu"}, "conv_bias_clamp": {"Clamp"}, "conv_bias_swish": {"Swish"},
    "conv_bias_hswish": {"HSwish"}, "conv_bias_mish": {"Mish"}, "conv_bias_gelu": {"Gelu"},
    "matmul_add_gelu": {"MatMul", "Add", "Gelu"},
    "layer_norm": {"ReduceMean", "Subtract", "Sqrt", "Divide"}, "rms_norm": {"Power", "ReduceMean", "Sqrt"},
    "group_norm": {"Reshape", "ReduceMean", "ShapeOf"},
    "attention_causal": {"MatMul", "Softmax", "Range", "Select"}, "attention_padding": {"MatMul", "Softmax", "Add"},
    "sdpa_causal": {"ScaledDotProductAttention"}, "sdpa_mask": {"ScaledDotProductAttention"},
    "rope": {"Sin", "Cos", "VariadicSplit", "Concat", "Range"},
    "fq_conv": {"FakeQuantize", "Convolution"}, "fq_matmul": {"FakeQuantize", "MatMul"},
    "decompress_u8": {"Convert", "Subtract", "Multiply", "MatMul"}, "decompress_i8": {"Convert", "Multiply", "MatMul"},
    "decompress_u4": {"Convert", "Subtract", "Multiply"}, "decompress_i4": {"Convert", "Multiply", "MatMul"},
    "decompress_u4_scalar_zp": {"Convert", "Subtract", "Multiply", "MatMul"},
    "decompress_f8e4m3": {"Convert", "Multiply", "MatMul"}, "decompress_f8e5m2": {"Convert", "Multiply", "MatMul"},
    "residual_add": {"Convolution", "Add", "Relu"}, "concat_convs": {"Convolution", "Concat"},
    "transpose_reshape_cancel": {"Transpose", "Reshape"}, "squeeze_unsqueeze": {"Squeeze", "Unsqueeze"},
    "strided_slice_views": {"StridedSlice"},
    "conv_add_grid": {"Convolution", "MatMul", "Add"}, "conv_scale_grid": {"Convolution", "MatMul", "Multiply"},
    "bias_shared_by_activation": {"Convolution", "MatMul", "Add", "Sigmoid", "Relu", "Tanh"},
    "convert_round_trip_f16": {"Convert", "Subtract"}, "convert_round_trip_i32": {"Convert", "Subtract"},
    "unused_leading_input": {"Relu"}, "input_passthrough": {"Sigmoid"},
}


def test_catalogue_is_complete() -> None:
    assert set(patterns.names()) == set(HOLDS)


@pytest.mark.parametrize("name", sorted(HOLDS))
def test_pattern_holds_its_ops_at_realistic_sizes(name: str) -> None:
    static, dynamic = patterns.build(name), patterns.build(name, dynamic=True)
    types = {n.type_name for n in static.model.get_ordered_ops()}
    assert HOLDS[name] <= types, sorted(types)
    assert not any(p.get_output_partial_shape(0).is_dynamic for p in static.model.get_parameters())
    assert any(p.get_output_partial_shape(0).is_dynamic for p in dynamic.model.get_parameters())
    assert len(static.steps) == len(dynamic.steps) == 2
    # static: one shape twice, new values (state kept from the first inference shows)
    assert all(a.shape == b.shape and not np.array_equal(a, b) for k, a in static.steps[0].items()
               for b in [static.steps[1][k]] if k != "mask")
    first, second = ({k: v.shape for k, v in step.items()} for step in dynamic.steps)
    assert first != second
    outputs = R.run_reference(static.model, static.steps)[0]
    biggest = max(max(a.shape) for a in [*static.steps[0].values(), *outputs])
    assert biggest >= 64, f"{name}: largest input or output dimension {biggest}"
    if name.startswith("decompress_"):
        compressed = [n for n in static.model.get_ordered_ops() if n.friendly_name == "w_compressed"]
        assert compressed[0].get_output_element_type(0).name == name.split("_")[1]


@pytest.mark.parametrize("name", ["attention_causal", "rope", "decompress_u4", "strided_slice_views"])
def test_pattern_survives_ir(tmp_path: object, name: str) -> None:
    from pathlib import Path

    case = patterns.build(name, dynamic=True)
    folder = Path(str(tmp_path))
    ovconform.serialize(case.model, folder / "m.xml", folder / "m.bin")
    back = ovconform.read_model(str(folder / "m.xml"), str(folder / "m.bin"))
    for want, got in zip(R.run_reference(case.model, case.steps), R.run_reference(back, case.steps), strict=True):
        for a, b in zip(want, got, strict=True):
            np.testing.assert_array_equal(a, b)


@settings(max_examples=40, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(fuzz.graphs())
def test_fuzz_graphs_are_valid_and_run(case: GraphCase) -> None:
    case.model.validate()
    assert 1 <= len(case.model.get_results()) <= 3
    outs = R.run_reference(case.model, case.steps)
    assert len(outs) == len(case.steps) == (2 if case.dynamic else 1)
    dynamic_inputs = any(p.get_output_partial_shape(0).is_dynamic for p in case.model.get_parameters())
    assert dynamic_inputs == case.dynamic
