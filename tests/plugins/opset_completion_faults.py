"""REFERENCE variants with one realistic bug each in an op that completed opset1..17 (issue #22)
(GroupedMatMul-17, BinaryConvolution-1, BGRtoNV12-17), for ``tests/ops/test_opset_completion.py``
(``--plugin=opset_completion_faults:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``).

As in ``added_op_faults.py``, each fault rewrites the device's private copy of the model in its
compile step, never the shared REFERENCE kernels (the oracle runs in the same process).
"""

from __future__ import annotations

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Output, constant_value

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference


def _replace(node: Node, wrong: list[Output]) -> None:
    """Every consumer of ``node``'s outputs reads ``wrong`` instead (the tensor names move with them)."""
    for out, new in zip(node.outputs(), wrong, strict=True):
        targets, names = out.get_target_inputs(), out.get_names()
        for target in targets:
            target.replace_source_output(new)
        if names:
            new.add_names(names)


class GroupedMatMulIgnoresLastOffset(PatchedReference):
    """GroupedMatMul (2D x 3D) ignores the last group's offset: the rows of the last group are computed
    with the weights of the group before it (its end is taken for the one before)."""

    device_name = "OPF_GMM_LASTOFF"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "GroupedMatMul" or node.get_input_size() != 3:
            return
        ends = constant_value(node.input_value(2))
        if ends is None or ends.size < 2:
            return
        wrong = np.array(ends).reshape(-1).copy()
        wrong[-2] = wrong[-1]
        node.set_argument(2, opset.constant(wrong.astype(ends.dtype), node.get_input_element_type(2)).output(0))


class BinaryConvolutionPadValueZero(PatchedReference):
    """BinaryConvolution pads with 0 (read as -1) whatever ``pad_value`` says."""

    device_name = "OPF_BCONV_PAD"

    def _rewrite(self, node: Node) -> None:
        if node.type_name == "BinaryConvolution":
            node.attrs["pad_value"] = 0.0


class BGRtoNV12ReadsRGB(PatchedReference):
    """BGRtoNV12 takes the image's channels as red, green, blue (RGBtoNV12's formula)."""

    device_name = "OPF_BGR_AS_RGB"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "BGRtoNV12":
            return
        wrong = opset.rgb_to_nv12(node.input_value(0), bool(node.attrs["single_plane"]))
        _replace(node, wrong.outputs())


#: class name -> one-line description of its fault.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0]
          for cls in (GroupedMatMulIgnoresLastOffset, BinaryConvolutionPadValueZero, BGRtoNV12ReadsRGB)}

