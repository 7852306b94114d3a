"""The adapter's cache of OpenVINO's reading of our IR (``_convert.to_ov_model``): one read per IR,
each caller its own clone, a changed model (or changed weights) read anew."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino")

import openvino as ov  # noqa: E402

from ovconform import Model, opset  # noqa: E402
from ovconform.adapters.openvino import _convert  # noqa: E402
from ovconform.ir import Type  # noqa: E402


def _model(bias: float, name: str = "m") -> Model:
    x = opset.parameter([2, 3], Type.f32, name="x")
    out = opset.add(x, opset.constant(np.full([2, 3], bias, np.float32)), name="add")
    return Model([out], [x], name)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The XML texts OpenVINO was asked to read (the cache emptied first)."""
    monkeypatch.setattr(_convert, "_READ", type(_convert._READ)())
    seen: list[str] = []
    original = ov.Core.read_model

    def counting(self: ov.Core, *args: object, **kwargs: object) -> ov.Model:
        seen.append(str(args[0]))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ov.Core, "read_model", counting)
    return seen


def _run(core: ov.Core, ov_model: ov.Model) -> np.ndarray:
    compiled = core.compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return np.array(compiled({0: np.zeros([2, 3], np.float32)})[0])


def test_one_read_per_ir_and_a_clone_per_caller(reads: list[str]) -> None:
    core = ov.Core()
    model = _model(1.0)
    first, second = _convert.to_ov_model(core, model), _convert.to_ov_model(core, model)
    assert len(reads) == 1
    assert first is not second
    first.get_parameters()[0].set_friendly_name("renamed")  # a caller changing its model changes no other's
    assert second.get_parameters()[0].get_friendly_name() == "x"
    assert _convert.to_ov_model(core, model).get_parameters()[0].get_friendly_name() == "x"
    assert len(reads) == 1
    np.testing.assert_array_equal(_run(core, second), np.ones([2, 3], np.float32))


def test_other_weights_or_graph_are_read_anew(reads: list[str]) -> None:
    core = ov.Core()
    model = _model(1.0)
    one = _convert.to_ov_model(core, model)
    model.get_ordered_ops()[1].data = np.full([2, 3], 2.0, np.float32)  # same XML, other weights
    two = _convert.to_ov_model(core, model)
    model.set_friendly_name("other")  # other XML
    renamed = _convert.to_ov_model(core, model)
    assert len(reads) == 3
    np.testing.assert_array_equal(_run(core, one), np.full([2, 3], 1.0, np.float32))
    np.testing.assert_array_equal(_run(core, two), np.full([2, 3], 2.0, np.float32))
    assert renamed.get_friendly_name() == "other"


def test_the_cache_is_bounded(reads: list[str]) -> None:
    core = ov.Core()
    models = [_model(float(i)) for i in range(_convert.READ_CACHE_SIZE + 3)]
    for model in models:
        _convert.to_ov_model(core, model)
    assert len(_convert._READ) == _convert.READ_CACHE_SIZE
    _convert.to_ov_model(core, models[0])  # the oldest went: read again
    assert len(reads) == _convert.READ_CACHE_SIZE + 4


def test_digest_separates_xml_from_weights() -> None:
    assert _convert.ir_digest(b"ab", b"c") != _convert.ir_digest(b"a", b"bc")


def test_large_irs_are_not_kept(reads: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_convert, "READ_CACHE_MAX_BYTES", 16)
    core = ov.Core()
    model = _model(1.0)
    first, second = _convert.to_ov_model(core, model), _convert.to_ov_model(core, model)
    assert len(reads) == 2 and len(_convert._READ) == 0 and first is not second
    np.testing.assert_array_equal(_run(core, second), np.ones([2, 3], np.float32))
