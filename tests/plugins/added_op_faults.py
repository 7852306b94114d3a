"""REFERENCE variants with one realistic bug each in an op added for issue #22 (Reverse-1, Xor-1,
ErfInv-17), for ``tests/suites/test_added_op_faults.py`` (``--plugin=added_op_faults:<Class>`` with
``tests/plugins`` on ``PYTHONPATH``).

As in ``op_kernel_faults.py``, each fault is a rewrite of the device's private copy of the model
in its compile step, never a change to the shared REFERENCE kernels (the oracle runs in the same
process). query_model is REFERENCE's: the devices claim the ops they get wrong.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type, constant_value

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference


class ReverseMaskAsIndices(PatchedReference):
    """Reverse in mode "mask" reads the mask as axis indices (true = axis 1, false = axis 0)."""

    device_name = "OPF_REVMASK"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Reverse" or node.attrs["mode"] != "mask":
            return
        node.set_argument(1, opset.convert(node.input_value(1), Type.i64).output(0))
        node.attrs["mode"] = "index"


class ReverseRepeatedAxisTwice(PatchedReference):
    """Reverse in mode "index" flips once per listed axis, so an axis named twice is not reversed
    (the spec's axes are a set: it is reversed once)."""

    device_name = "OPF_REVTWICE"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Reverse" or node.attrs["mode"] != "index":
            return
        axes = constant_value(node.input_value(1))
        data = node.get_input_partial_shape(0)
        if axes is None or not data.has_rank() or len(data) == 0:
            return
        counts = Counter(int(a) % len(data) for a in np.asarray(axes).reshape(-1))
        odd = np.array(sorted(a for a, c in counts.items() if c % 2), dtype=np.int64)
        node.set_argument(1, opset.constant(odd, Type.i64).output(0))


class XorComputesOr(PatchedReference):
    """Xor-1 runs LogicalOr's kernel (true xor true gives true)."""

    device_name = "OPF_XOR_OR"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Xor":
            return
        a, b, mode = node.input_value(0), node.input_value(1), node.attrs["auto_broadcast"]
        targets, names = node.output(0).get_target_inputs(), node.output(0).get_names()
        wrong = opset.logical_or(a, b, mode).output(0)
        for target in targets:
            target.replace_source_output(wrong)
        if names:
            wrong.add_names(names)


class ErfInvNaNAtOne(PatchedReference):
    """ErfInv gives NaN at ±1 (its domain check is |x| >= 1) instead of the spec's ±inf."""

    device_name = "OPF_ERFINV_ONE"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "ErfInv":
            return
        x, et = node.input_value(0), node.get_input_element_type(0)
        targets, names = node.output(0).get_target_inputs(), node.output(0).get_names()
        one = opset.constant(np.array(1.0, et.to_dtype()) if et != Type.bf16 else np.array(1.0, np.float32), et)
        nan = opset.constant(np.array(np.nan, et.to_dtype()) if et != Type.bf16 else np.array(np.nan, np.float32),
                             et)
        wrong = opset.select(opset.equal(opset.abs(x), one), nan, node.output(0)).output(0)
        for target in targets:
            target.replace_source_output(wrong)
        if names:
            wrong.add_names(names)


#: class name -> one-line description of its fault.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0]
          for cls in (ReverseMaskAsIndices, ReverseRepeatedAxisTwice, XorComputesOr, ErfInvNaNAtOne)}
