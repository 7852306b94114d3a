"""REFERENCE variants with one realistic bug each in an NMS op added for issue #22 (MatrixNms-8,
MulticlassNms-8/9, NMSRotated-13), for ``tests/suites/test_nms_faults.py``
(``--plugin=nms_faults:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``).

As in ``added_op_faults.py``, each fault is a rewrite of the device's private copy of the model in
its compile step (an attribute of the op under test changed), never a change to the shared
REFERENCE kernels. query_model is REFERENCE's: the devices claim the ops they get wrong.
"""

from __future__ import annotations

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference

from ovconform.ir import Node


class MatrixNmsGaussianAsLinear(PatchedReference):
    """MatrixNms decays with the linear function when gaussian is asked for."""

    device_name = "NMSF_MATRIX_DECAY"

    def _rewrite(self, node: Node) -> None:
        if node.type_name == "MatrixNms" and node.attrs["decay_function"] == "gaussian":
            node.attrs["decay_function"] = "linear"


class MulticlassNmsKeepsBackground(PatchedReference):
    """MulticlassNms ignores background_class (the background's boxes are selected like any class's)."""

    device_name = "NMSF_MULTI_BG"

    def _rewrite(self, node: Node) -> None:
        if node.type_name == "MulticlassNms":
            node.attrs["background_class"] = -1


class NMSRotatedAngleDirectionReversed(PatchedReference):
    """NMSRotated turns the boxes the other way (reads clockwise as counterclockwise and back)."""

    device_name = "NMSF_ROT_DIR"

    def _rewrite(self, node: Node) -> None:
        if node.type_name == "NMSRotated":
            node.attrs["clockwise"] = not node.attrs["clockwise"]


#: class name -> one-line description of its fault.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0]
          for cls in (MatrixNmsGaussianAsLinear, MulticlassNmsKeepsBackground, NMSRotatedAngleDirectionReversed)}
