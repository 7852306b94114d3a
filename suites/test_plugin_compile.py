"""compile_model as seen from the plugin (``ov_plugin`` entity): ``core_integration_sw.hpp``
OVClassModelOptionalTestP.CompileModelCreateDefaultExecGraphResult — O: the runtime model keeps
the parameters' and results' element types and shapes. (The HETERO / MULTI / meta-plugin rows of
that file do not apply: there are no meta plugins here.)"""

from __future__ import annotations

from typing import Any

import pytest

from ovconform.assertions import assert_equal, call, no_error
from ovconform.suites import _models

pytestmark = pytest.mark.entity("ov_plugin")


def _io(model: Any) -> list[tuple[str, str, str]]:
    ports = [("parameter", p.output(0)) for p in model.get_parameters()] + \
        [("result", r.input_value(0)) for r in model.get_results()]
    return [(kind, str(port.get_element_type()), str(port.get_partial_shape())) for kind, port in ports]


@pytest.mark.parametrize("name", ["conv_pool_relu", "split_conv_concat", "kso", "read_concat_split_assign"])
def test_compile_model_create_default_exec_graph_result(ov_core: Any, ov_device_name: str, name: str) -> None:
    """CompileModelCreateDefaultExecGraphResult: parameters and results of the runtime model match
    the original model's (element type and shape, in order)."""
    model = _models.build(name)
    where = call(ov_device_name, "compile_model+get_runtime_model", model.friendly_name)
    with no_error(where):
        runtime = ov_core.compile_model(model, ov_device_name).get_runtime_model()
    assert_equal(_io(runtime), _io(model), "runtime model (kind, element type, shape) of its ports", where)
