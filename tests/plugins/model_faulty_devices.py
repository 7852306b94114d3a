"""REFERENCE variants with faults only real models reach, for the real-architecture model suite
(``suites/test_real_models.py``; ``--plugin=model_faulty_devices:<Class>`` with ``tests/plugins``
on ``PYTHONPATH``). The faults live in the device's own compile step or request, never in the
shared REFERENCE kernels (the oracle runs in the same process)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform import opset
from ovconform import properties as P
from ovconform.ir import Model, Type
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

#: Runs after which the faulty KV cache starts dropping its oldest entry.
KV_GOOD_RUNS = 8
#: Input channels from which the faulty Convolution kernel goes wrong.
WIDE_CHANNELS = 512


class _DroppingRequest(ReferenceSyncInferRequest):
    """After :data:`KV_GOOD_RUNS` runs, every variable of rank >= 3 that it writes loses its
    oldest entry on the sequence axis (-2): a sliding-window cache where a full one was asked."""

    def __init__(self, compiled_model: ReferenceCompiledModel) -> None:
        self.runs = 0
        super().__init__(compiled_model)

    def _start_pipeline(self) -> None:
        super()._start_pipeline()
        self.runs += 1
        if self.runs <= KV_GOOD_RUNS:
            return
        for state in self._states.values():
            value = state.get_state().data
            if value.ndim >= 3 and value.shape[-2] > 1:
                state.set_state(np.ascontiguousarray(value[..., 1:, :]))


class _DroppingCompiledModel(ReferenceCompiledModel):
    sync_request_class = _DroppingRequest


class KvCacheDropsOldest(ReferencePlugin):
    """The KV cache drops its oldest entry once the request has run 8 times."""

    device_name = "MODELFAULT_KV_DROP"

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        compiled = super()._compile_model(model, config, context)
        compiled.__class__ = _DroppingCompiledModel  # REFERENCE builds its own class; its requests drop entries
        return compiled


class WideConvolutionWrong(ReferencePlugin):
    """Convolution with 512 or more input channels ignores the last input channel (a blocked
    kernel that drops the channel remainder): reached only deep in ResNet-50."""

    device_name = "MODELFAULT_WIDE_CONV"

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        for node in model.get_ordered_ops():
            if node.type_name != "Convolution":
                continue
            weights = node.input_value(1).node
            if weights.type_name != "Constant" or weights.get_output_partial_shape(0)[1].get_length() < WIDE_CHANNELS:
                continue
            data = np.array(weights.data, copy=True)
            data[:, -1] = 0
            node.input(1).replace_source_output(opset.constant(data, weights.get_output_element_type(0)).output(0))
        return super()._compile_model(model, config, context)


class U4ZeroPointAfterScale(ReferencePlugin):
    """u4 weight decompression applies the zero point after the scale: q·s - zp, not (q - zp)·s
    (a fused kernel that folds the two steps in the wrong order); i4 and u8 weights are right."""

    device_name = "MODELFAULT_U4_ZP_AFTER_SCALE"

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        for sub in model.get_ordered_ops():
            convert = sub.input_value(0).node if sub.type_name == "Subtract" else None
            if convert is None or convert.type_name != "Convert":
                continue
            codes = convert.input_value(0).node
            readers = [t.get_node() for t in sub.output(0).get_target_inputs()]
            mul = next((n for n in readers if n.type_name == "Multiply"), None)
            if codes.type_name != "Constant" or codes.get_output_element_type(0) != Type.u4 or mul is None:
                continue
            scale = mul.input_value(1)
            scaled = opset.multiply(convert.output(0), scale, name=f"{sub.friendly_name}.scaled_first")
            for target in list(mul.output(0).get_target_inputs()):  # the Multiply's readers take q·s - zp
                target.replace_source_output(sub.output(0))
            sub.input(0).replace_source_output(scaled.output(0))
        return super()._compile_model(model, config, context)


FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0]
          for cls in (KvCacheDropsOldest, WideConvolutionWrong, U4ZeroPointAfterScale)}
