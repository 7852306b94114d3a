"""The contract's batched inputs (``SyncInferRequest.set_tensors`` / ``set_input_tensors``) and the
``Layout`` they read the batch dimension from."""

from __future__ import annotations

import numpy as np
import pytest

import ovconform
from ovconform import Model, Tensor
from ovconform import opset as ops
from ovconform.errors import NotFoundError, ValidationError
from ovconform.ir import Layout
from ovconform.ir._layout import get_batch_index, has_batch


@pytest.mark.parametrize(("text", "rank", "index", "spelled"), [
    ("NCHW", 4, 0, "[N,C,H,W]"), ("N...", 3, 0, "[N,...]"), ("...N", 5, 4, "[...,N]"), ("CN...", 4, 1, "[C,N,...]"),
    ("[batch,N,c]", 3, 1, "[BATCH,N,C]"), ("nchw", 4, 0, "[N,C,H,W]"), ("?N??", 4, 1, "[?,N,?,?]"),
])
def test_layout_batch_index(text: str, rank: int, index: int, spelled: str) -> None:
    layout = Layout(text)
    assert has_batch(layout) and get_batch_index(layout, rank) == index
    assert layout.to_string() == spelled and Layout(spelled) == layout


@pytest.mark.parametrize(("text", "match"), [
    ("N..C", "not a dimension name"), ("N......", "more than one"), ("[N,C", "unbalanced"), ("NN", "twice"),
    ("[N,1x]", "not a dimension name"),
])
def test_bad_layout_is_refused(text: str, match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        Layout(text)


def test_layout_without_batch_or_rank() -> None:
    assert not has_batch(Layout("DCHW")) and Layout("").empty() and Layout("????") == "[?,?,?,?]"
    with pytest.raises(ValidationError, match="no batch dimension"):
        get_batch_index(Layout("DCHW"), 4)
    with pytest.raises(ValidationError, match="rank 3"):
        get_batch_index(Layout("NCHW"), 3)


def test_parameter_layout_round_trips_through_ir() -> None:
    p = ops.parameter([2, 3], np.float32, name="x")
    p.set_layout("N...")
    model = Model([ops.result(ops.relu(p))], [p], "m")
    xml, weights = ovconform.serialize(model)
    again = ovconform.read_model(xml, weights)
    assert again.get_parameters()[0].get_layout() == Layout("N...")
    assert model.clone().get_parameters()[0].get_layout() == "[N,...]"


def _request(layout: str = "N...", shape: tuple[int | None, ...] = (3, 2)) -> ovconform.InferRequest:
    p = ops.parameter([-1 if d is None else d for d in shape], np.float32, name="x")
    p.output(0).set_names({"x"})
    if layout:
        p.set_layout(layout)
    out = ops.multiply(p, ops.constant(np.array([2], np.float32)))
    out.output(0).set_names({"y"})
    return ovconform.Core().compile_model(Model([ops.result(out)], [p], "m"), "REFERENCE").create_infer_request()


def _items(n: int = 3, shape: tuple[int, ...] = (1, 2)) -> list[Tensor]:
    return [Tensor(np.full(shape, i + 1, np.float32)) for i in range(n)]


def test_items_are_gathered_at_each_run() -> None:
    req = _request()
    items = _items()
    req.set_tensors("x", items)
    req.infer()
    np.testing.assert_array_equal(req.get_tensor("y").data, [[2, 2], [4, 4], [6, 6]])
    items[1].data[...] = 10  # written after set_tensors: the next run sees it
    req.infer()
    np.testing.assert_array_equal(req.get_tensor("y").data[1], [20, 20])
    assert set(req.sync_request.batched_inputs) == {0}


def test_get_tensor_of_a_batched_input_raises_and_set_tensor_ends_it() -> None:
    req = _request()
    req.set_input_tensors(_items())
    with pytest.raises(ValidationError, match="set_tensors"):
        req.get_tensor("x")
    with pytest.raises(ValidationError, match="set_tensors"):
        req.get_input_tensor()
    plain = Tensor(np.ones((3, 2), np.float32))
    req.set_tensor("x", plain)
    assert req.get_tensor("x") is plain and req.sync_request.batched_inputs == {}
    req.infer()
    np.testing.assert_array_equal(req.get_tensor("y").data, np.full((3, 2), 2))


def test_one_tensor_is_set_tensor() -> None:
    req = _request(shape=(1, 2))
    [item] = _items(1)
    req.set_tensors("x", [item])
    assert req.get_tensor("x") is item


def test_infer_with_values_ends_the_batch() -> None:
    req = _request()
    req.set_tensors("x", _items())
    req.infer({"x": np.full((3, 2), 5, np.float32)})
    np.testing.assert_array_equal(req.get_tensor("y").data, np.full((3, 2), 10))
    assert req.sync_request.batched_inputs == {}


def test_dynamic_batch_takes_the_count() -> None:
    req = _request(shape=(None, 2))
    req.set_tensors("x", _items(5))
    req.infer()
    assert req.get_tensor("y").shape == (5, 2)


@pytest.mark.parametrize(("layout", "key", "items", "error", "match"), [
    ("N...", "x", [], ValidationError, "no tensors"),
    ("N...", "x", "not a list", ValidationError, "list of Tensors"),
    ("N...", "x", [Tensor(np.zeros((1, 2), np.float32)), np.zeros((1, 2), np.float32)], ValidationError,
     "not a Tensor"),
    ("C...", "x", None, ValidationError, "batch dimension 'N'"),
    ("", "x", None, ValidationError, "layout '\\(none\\)'"),
    ("N...", "x", _items(4), ValidationError, "does not fit"),
    ("N...", "x", [*_items(2), Tensor(np.zeros((1, 2), np.int32))], ValidationError, "element type"),
    ("N...", "x", [*_items(2), Tensor(np.zeros((1, 3), np.float32))], ValidationError, "shape"),
    ("N...", "x", [Tensor(np.zeros((2, 2), np.float32)), *_items(1)], ValidationError, "batch 1"),
    ("N...", "y", None, NotFoundError, "set_tensors sets inputs"),
    ("N...", "nope", None, NotFoundError, "not found"),
])
def test_bad_set_tensors_is_refused(layout: str, key: str, items: object, error: type[Exception],
                                    match: str) -> None:
    req = _request(layout)
    with pytest.raises(error, match=match):
        req.set_tensors(key, _items() if items is None else items)


def test_set_input_tensors_needs_an_index_for_several_inputs() -> None:
    ps = [ops.parameter([2, 2], np.float32, name=f"x{i}") for i in range(2)]
    for p in ps:
        p.set_layout("N...")
    compiled = ovconform.Core().compile_model(Model([ops.result(ops.add(*ps))], ps, "two"), "REFERENCE")
    req = compiled.create_infer_request()
    with pytest.raises(NotFoundError, match="give an index"):
        req.set_input_tensors(_items(2))
    with pytest.raises(NotFoundError, match="no input 7"):
        req.set_input_tensors(7, _items(2))
    req.set_input_tensors(1, _items(2))
    with pytest.raises(ValidationError, match="takes a dict"):
        req.set_tensors()
