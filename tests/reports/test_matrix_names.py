"""The merged matrix names a test once whatever its devices are called: ``_doc.test_name`` removes
the device parameter as a whole, hyphens, dots and colons included (the browser test checks the
rendered rows)."""

from __future__ import annotations

import pytest
from test_reports_core import op_document

from ovconform.reports import _doc, merge

DEVICES = ["REFERENCE", "openvino-CPU", "GPU.0", "HETERO:CPU,GPU", "my-dev.2:x"]


@pytest.mark.parametrize(("nodeid", "device", "name"), [
    ("a.py::t[openvino-CPU-conv_pool_relu]", "openvino-CPU", "a.py::t[conv_pool_relu]"),
    ("a.py::t[conv-openvino-CPU]", "openvino-CPU", "a.py::t[conv]"),
    ("a.py::t[x-openvino-CPU-y]", "openvino-CPU", "a.py::t[x-y]"),
    ("a.py::t[openvino-CPU]", "openvino-CPU", "a.py::t"),
    ("a.py::t[REF--1]", "REF", "a.py::t[-1]"),  # a parameter id of its own starting with '-'
    ("a.py::t[GPU.1-x]", "GPU", "a.py::t[x]"),  # a device id folded into its device
    ("a.py::t[HETERO:CPU,GPU-f32]", "HETERO:CPU,GPU", "a.py::t[f32]"),
    ("a.py::C::t[CPUX-CPU]", "CPU", "a.py::C::t[CPUX]"),  # only the whole parameter
    ("a.py::t", "CPU", "a.py::t"),
])
def test_the_device_parameter_is_removed_whole(nodeid: str, device: str, name: str) -> None:
    assert _doc.test_name({"nodeid": nodeid, "device": device}) == name


def test_every_device_name_gives_one_name_per_test() -> None:
    doc = merge.merge([op_document(d) for d in DEVICES])
    per_device = len(op_document("X")["records"])
    names = {_doc.test_name(r) for r in doc["records"]}
    assert len(doc["records"]) == per_device * len(DEVICES) and len(names) == per_device


def test_folded_device_ids_give_one_name_per_test() -> None:
    doc = merge.merge([op_document("GPU.0"), op_document("GPU.1")], merge_device_suffixes=True)
    assert {_doc.test_name(r) for r in doc["records"]} == {_doc.test_name(r) for r in op_document("GPU")["records"]}
