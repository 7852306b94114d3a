"""REFERENCE variants that read a storage type's bits wrongly, for
``tests/ops/test_storage_type_faults.py`` (``--plugin=element_type_faults:<Class>`` with
``tests/plugins`` on ``PYTHONPATH``).

As in ``op_kernel_faults.py``, each fault is a rewrite of the device's private copy of the model,
never a change to the shared REFERENCE kernels. The faults are the mix-ups weight-decompression
kernels make: signed 4-bit weights read without sign extension, one 8-bit float format's bits
decoded as the other's.
"""

from __future__ import annotations

from ovconform import opset
from ovconform.ir import Node, Type

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference


def _constant_input(node: Node, et: Type) -> Node | None:
    """The Constant of type ``et`` feeding a Convert ``node``, else None."""
    if node.type_name != "Convert":
        return None
    src = node.input_value(0).get_node()
    if src.type_name != "Constant" or src.get_output_element_type(0) != et or src.data is None:
        return None
    return src


class I4ReadAsU4(PatchedReference):
    """i4 weights are decoded without sign extension (the nibble 0xF gives 15, not -1)."""

    device_name = "ETF_I4U4"

    def _rewrite(self, node: Node) -> None:
        src = _constant_input(node, Type.i4)
        if src is not None:
            assert src.data is not None
            nibbles = src.data.view("uint8") & 0x0F
            node.set_argument(0, opset.constant(nibbles, Type.u4).output(0))


class F8E4M3ReadAsE5M2(PatchedReference):
    """f8e4m3 codes are decoded as f8e5m2 (the other OCP 8-bit float format)."""

    device_name = "ETF_E4AS5"

    def _rewrite(self, node: Node) -> None:
        src = _constant_input(node, Type.f8e4m3)
        if src is not None:
            node.set_argument(0, opset.constant(src.data, Type.f8e5m2).output(0))


#: class name -> one-line description of its fault.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0] for cls in (I4ReadAsU4, F8E4M3ReadAsE5M2)}
