"""REFERENCE variants that are right op by op but wrong when they fuse, for the graph pattern
catalogue and the graph fuzz (``tests/suites/test_graph_patterns_faults.py``;
``--plugin=fusion_faulty_devices:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``).

Each one's compile step looks for a pattern the way a fusing compiler does: a chain whose
intermediates have exactly one reader (a value another op or a Result also reads cannot stay
inside a fused kernel). It then rewrites its private copy of the model to compute what a buggy
fused kernel would. Every op alone, and the same chain with its intermediates made outputs (the
unfused control), computes right. The shared REFERENCE kernels are never touched: the oracle
runs in the same process.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform import opset
from ovconform import properties as P
from ovconform.ir import Model, Node, Output
from reference_plugin.plugin import ReferencePlugin

#: Channels per block of the fused convolution kernel (its last block is the remainder one).
CHANNEL_BLOCK = 16
#: The fused convolution kernel is used from this many output channels on.
MIN_CHANNELS = 64


def _only_reader(out: Output, type_name: str) -> Node | None:
    """The node that reads ``out``, when it is its only reader and of ``type_name``."""
    targets = out.get_target_inputs()
    if len(targets) != 1:
        return None
    node = targets[0].get_node()
    return node if node.type_name == type_name else None


class ConvBiasReluDropsLastBlock(ReferencePlugin):
    """Fused Convolution → Add(per-channel bias) → Relu (≥ 64 output channels) drops the bias of
    the last block of 16 output channels."""

    device_name = "FUSEFAULT_CONV_BIAS_RELU"

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        for conv in model.get_ordered_ops():
            if conv.type_name != "Convolution":
                continue
            add = _only_reader(conv.output(0), "Add")
            if add is None or _only_reader(add.output(0), "Relu") is None:
                continue
            port = 1 if add.input_value(0).node is conv else 0
            bias = add.input_value(port).node
            data = None if bias.type_name != "Constant" else np.asarray(bias.data)
            if data is None or data.ndim != 4 or data.shape[1] < MIN_CHANNELS:
                continue
            dropped = np.array(data)
            dropped[:, (data.shape[1] - 1) // CHANNEL_BLOCK * CHANNEL_BLOCK:] = 0
            add.set_argument(port, opset.constant(dropped, bias.get_output_element_type(0)).output(0))
        return super()._compile_model(model, config, context)


class AttentionIgnoresMask(ReferencePlugin):
    """Fused attention MatMul → Add(mask) → Softmax → MatMul leaves the mask out."""

    device_name = "FUSEFAULT_ATTENTION_MASK"

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        for qk in model.get_ordered_ops():
            if qk.type_name != "MatMul":
                continue
            add = _only_reader(qk.output(0), "Add")
            softmax = None if add is None else _only_reader(add.output(0), "Softmax")
            if softmax is None or _only_reader(softmax.output(0), "MatMul") is None:
                continue
            softmax.set_argument(0, qk.output(0))
        return super()._compile_model(model, config, context)


class DecompressionDropsZeroPoint(ReferencePlugin):
    """Fused weight decompression Convert → Subtract(zero point) → Multiply(scale) → [Reshape] →
    MatMul ignores the zero point."""

    device_name = "FUSEFAULT_DECOMPRESSION_ZP"

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        for convert in model.get_ordered_ops():
            if convert.type_name != "Convert" or convert.input_value(0).node.type_name != "Constant":
                continue
            sub = _only_reader(convert.output(0), "Subtract")
            mul = None if sub is None else _only_reader(sub.output(0), "Multiply")
            if mul is None:
                continue
            after = _only_reader(mul.output(0), "Reshape") or mul
            if _only_reader(after.output(0), "MatMul") is None:
                continue
            for target in sub.output(0).get_target_inputs():
                target.replace_source_output(convert.output(0))
        return super()._compile_model(model, config, context)


#: class name -> one-line description of its fault.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0] for cls in (ConvBiasReluDropsLastBlock,
                                                                         AttentionIgnoresMask,
                                                                         DecompressionDropsZeroPoint)}
