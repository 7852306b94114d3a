"""REFERENCE variants with one realistic element-type bug each (a red team's findings, round 3: each
passed every test of its ops, or the whole default run, before
:mod:`ovconform.opcases._stimulus_types`, the boolean byte check of
:func:`ovconform.tolerances.compare` and the ``decompress_u4_scalar_zp`` / ``decompress_f8*``
graph patterns), for ``tests/ops/test_stimulus_types.py`` and ``tests/suites/test_graph_faults_types.py``
(``--plugin=stimulus_faults_types:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``).

Each fault lives in the device's private model copy (``_rewrite``), in its own compiled program's
kernels (``_patch``) or in its own request class, never in REFERENCE's shared kernels (the oracle runs
in the same process). Device names name no op type and hold no "-".
"""

from __future__ import annotations

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Output, Type
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.ops._common_types import convert_array, to_compute
from reference_plugin.ops.op_convert import Convert
from reference_plugin.ops.op_fake_convert import FakeConvert
from reference_plugin.ops.op_string_tensor_pack import StringTensorPack
from reference_plugin.ops.op_string_tensor_unpack import StringTensorUnpack
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference

F16_MAX = 65504.0


def _swap(compiled: ReferenceCompiledModel, table: dict[str, type]) -> None:
    """Replace the kernels of the nodes whose op type is in ``table`` (any version)."""
    for step in compiled.program.steps:
        node = getattr(step, "node", None)
        if node is not None and node.type_name in table:
            step.kernel = table[node.type_name](node)


def _reroute(old: Output, new: Output) -> None:
    """Every reader of ``old`` reads ``new``, which takes ``old``'s tensor names."""
    for target in old.get_target_inputs():
        target.replace_source_output(new)
    names = old.get_names()
    if names:
        old.set_names([])
        new.add_names(names)


# -- FakeConvert: f8e5m2 without saturation ----------------------------------------------------------------------

class _E5M2Overflows(FakeConvert):
    def _run(self, data: np.ndarray, scale: np.ndarray, shift: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        (out,) = super()._run(data, scale, shift)
        if self.destination != "f8e5m2":
            return (out,)
        et = self.in_types[0]
        x, s = to_compute(data, et).astype(np.float32), to_compute(scale, et).astype(np.float32)
        o = to_compute(shift, et).astype(np.float32) if shift is not None else np.zeros_like(s)
        scaled = np.broadcast_to((x * s - o).astype(np.float16).astype(np.float32), x.shape)
        big = np.abs(scaled) >= 61440.0  # rounds past 57344: the non-saturating (OCP) conversion gives inf
        if not big.any():
            return (out,)
        res = to_compute(out, et).astype(np.float32).copy()
        res[big] = np.sign(scaled[big]) * np.inf
        return (convert_array(res, Type.f32, et),)


class FakeConvertE5M2NoSaturation(PatchedReference):
    """FakeConvert to f8e5m2 uses the hardware's default (non-saturating, OCP) f8 conversion: scaled
    values past the largest e5m2 (57344) that round up become ±inf instead of saturating."""

    device_name = "STT_E5SAT"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        _swap(compiled, {"FakeConvert": _E5M2Overflows})


# -- Convert: f32 -> bf16 without a NaN test ---------------------------------------------------------------------

def _bf16_bit_trick(x: np.ndarray) -> np.ndarray:
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return (((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF).astype(np.uint16)


class _BF16NoNaNCheck(Convert):
    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.src == Type.f32 and self.dst == Type.bf16:
            return (_bf16_bit_trick(np.asarray(x, np.float32)),)
        return super()._run(x)


class BF16ConvertNoNaNCheck(PatchedReference):
    """Convert f32 -> bf16 rounds with the bit trick (bits + 0x7FFF + lsb) >> 16 and no NaN test: a
    NaN whose payload sits in the low 16 bits becomes ±inf or ±0."""

    device_name = "STT_BFPAYLOAD"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        _swap(compiled, {"Convert": _BF16NoNaNCheck})


# -- strings as C strings ------------------------------------------------------------------------------------------

def _cut(strings: np.ndarray) -> np.ndarray:
    out = np.empty(strings.shape, dtype=object)
    out.reshape(-1)[:] = [s.split("\x00")[0] if isinstance(s, str) else s for s in strings.reshape(-1)]
    return out


class _UnpackCStr(StringTensorUnpack):
    def _run(self, data: np.ndarray) -> tuple[np.ndarray, ...]:
        return super()._run(_cut(np.asarray(data, dtype=object)))


class _PackCStr(StringTensorPack):
    def _run(self, begins: np.ndarray, ends: np.ndarray, symbols: np.ndarray) -> tuple[np.ndarray, ...]:
        (out,) = super()._run(begins, ends, symbols)
        return (_cut(np.asarray(out, dtype=object)),)


class StringsCutAtNul(PatchedReference):
    """String tensors are handled as C strings (strlen, std::string(const char*)): every string
    (StringTensorUnpack's input, StringTensorPack's output) ends at its first NUL byte."""

    device_name = "STT_CSTR"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        _swap(compiled, {"StringTensorUnpack": _UnpackCStr, "StringTensorPack": _PackCStr})


class _PackEmptyStale(StringTensorPack):
    def _run(self, begins: np.ndarray, ends: np.ndarray, symbols: np.ndarray) -> tuple[np.ndarray, ...]:
        (out,) = super()._run(begins, ends, symbols)
        flat = np.array(out, dtype=object, copy=True).reshape(-1)
        for i in range(1, flat.size):
            if flat[i] == "":
                flat[i] = flat[i - 1]  # the string buffer is reused and never cleared
        return (flat.reshape(np.shape(out)),)


class StringPackEmptyKeepsPrevious(PatchedReference):
    """StringTensorPack reuses one string buffer: an empty range (begin == end) yields the string
    before it instead of ""."""

    device_name = "STT_PACKSTALE"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        _swap(compiled, {"StringTensorPack": _PackEmptyStale})


# -- boolean outputs as compare-mask bytes ---------------------------------------------------------------------------

class _Bool255(ReferenceSyncInferRequest):
    def _start_pipeline(self) -> None:
        super()._start_pipeline()
        outs = []
        for out in self._output_arrays:
            arr = np.asarray(out)
            if arr.dtype == np.bool_:
                arr = np.array(arr, copy=True, order="C")
                arr.view(np.uint8)[...] *= 255  # the SIMD compare mask (0xFF) stored as is
            outs.append(arr)
        self._output_arrays = outs


class BoolOutputsAs255(PatchedReference):
    """Boolean outputs hold the vector compare mask's bytes: true is stored as 0xFF, not 0x01."""

    device_name = "STT_BOOLMASK"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        compiled.sync_request_class = _Bool255  # type: ignore[misc]


# -- f16 arithmetic that saturates ---------------------------------------------------------------------------------

SATURATING = ("Add", "Subtract", "Multiply", "Power", "Exp", "SquaredDifference")


class F16ArithmeticSaturates(PatchedReference):
    """f16 elementwise arithmetic stores with saturation (NPU-style): a result that overflows f16 from
    finite inputs is ±65504 instead of ±inf."""

    device_name = "STT_HALFSAT"

    def _rewrite(self, node: Node) -> None:
        if node.type_name not in SATURATING or node.get_output_element_type(0) != Type.f16:
            return
        out = node.output(0)
        targets = out.get_target_inputs()  # the readers before the clamp joins them
        finite = None
        for i in range(node.get_input_size()):
            v = node.input_value(i)
            f = opset.logical_not(opset.logical_or(opset.is_inf(v), opset.is_nan(v)))
            finite = f if finite is None else opset.logical_and(finite, f)
        clamped = opset.clamp(out, -F16_MAX, F16_MAX)
        new = opset.select(opset.logical_and(finite, opset.is_inf(out)), clamped, out).output(0)
        for t in targets:
            t.replace_source_output(new)
        names = out.get_names()
        if names:
            out.set_names([])
            new.add_names(names)


# -- Convert to the 8-bit floats by truncation -----------------------------------------------------------------------

F8 = {"f8e4m3": (3, -6), "f8e5m2": (2, -14)}


class _F8Truncates(Convert):
    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.dst.name in F8 and self.src.is_real() and not self.src.is_coded():
            mbits, emin = F8[self.dst.name]
            v = to_compute(x, self.src).astype(np.float64)
            _, exp = np.frexp(v)
            step = np.ldexp(1.0, np.maximum(exp - 1, emin) - mbits)
            with np.errstate(invalid="ignore"):
                cut = np.where(np.isfinite(v), np.trunc(v / step) * step, v)  # round toward zero
            return (convert_array(cut.astype(np.float32), Type.f32, self.dst),)
        return super()._run(x)


class ConvertToF8Truncates(PatchedReference):
    """Convert of run-time f32/f16 values to f8e4m3 / f8e5m2 drops the extra mantissa bits (round
    toward zero) instead of rounding to nearest even."""

    device_name = "STT_F8TRUNC"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        _swap(compiled, {"Convert": _F8Truncates})


# -- Convert from i64 through i32 ------------------------------------------------------------------------------------

class _I64ViaI32(Convert):
    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.src == Type.i64:
            return (convert_array(np.asarray(x).astype(np.int32).astype(np.int64), self.src, self.dst),)
        return super()._run(x)


class ConvertI64ThroughI32(PatchedReference):
    """Convert from i64 (to f32, f64, boolean, ...) first narrows to i32 (a GPU-style i64 -> i32 input
    lowering): sources beyond the i32 range wrap before the conversion."""

    device_name = "STT_WIDEVIA32"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        _swap(compiled, {"Convert": _I64ViaI32})


# -- narrowing Convert to a signed type saturates --------------------------------------------------------------------

class _NarrowSaturates(Convert):
    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        src, dst = self.src, self.dst
        if (src.is_integral_number() and dst.is_integral_number() and dst.is_signed() and not dst.is_packed()
                and Type.boolean not in (src, dst) and dst.bitwidth < src.bitwidth + (not src.is_signed())):
            info = np.iinfo(dst.to_dtype())
            return (np.clip(np.asarray(x).astype(np.int64), info.min, info.max).astype(dst.to_dtype()),)
        return super()._run(x)


class ConvertNarrowingToSignedSaturates(PatchedReference):
    """Convert to a narrower (or same-width from unsigned) signed integer type uses the saturating pack
    instruction (vpmovsdb / packsswb): i32 300 -> i8 127, u8 200 -> i8 127, instead of wrapping
    modulo 2^N as the spec's C++ rule (and OpenVINO's reference) do."""

    device_name = "STT_NARROWSAT"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        _swap(compiled, {"Convert": _NarrowSaturates})


# -- i32 arithmetic on the float ALU ---------------------------------------------------------------------------------

class I32ArithmeticThroughF32(PatchedReference):
    """i32 Add / Subtract / Multiply run on the float ALU (operands and result through f32): results
    beyond 2^24 lose their low bits."""

    device_name = "STT_INTVIAFLOAT"

    def _rewrite(self, node: Node) -> None:
        if node.type_name not in ("Add", "Subtract", "Multiply") or node.get_output_element_type(0) != Type.i32:
            return
        out = node.output(0)
        a, b = (opset.convert(node.input_value(i), Type.f32) for i in range(2))
        f = {"Add": opset.add, "Subtract": opset.subtract, "Multiply": opset.multiply}[node.type_name](a, b)
        _reroute(out, opset.convert(f, Type.i32).output(0))


# -- weight decompression (graph patterns) ---------------------------------------------------------------------------

class DecompressionIgnoresScalarZeroPoint(PatchedReference):
    """The fused weight-decompression matcher Convert(u4/u8 Constant) -> Subtract(zp) -> Multiply takes
    only per-group/per-channel zero points: a scalar zero point (NNCF's older u4 + zp=8 symmetric form)
    is dropped from the fused kernel."""

    device_name = "STT_SCALARZP"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Subtract":
            return
        conv = node.input_value(0).node
        if conv.type_name != "Convert" or conv.input_value(0).node.type_name != "Constant":
            return
        if conv.input_value(0).get_element_type() not in (Type.u4, Type.u8):
            return
        ps = node.input_value(1).get_partial_shape()
        if not ps.is_static or int(np.prod(ps.to_shape())) != 1:
            return
        if not any(t.get_node().type_name == "Multiply" for t in node.output(0).get_target_inputs()):
            return
        for t in node.output(0).get_target_inputs():
            t.replace_source_output(conv.output(0))


class F8DecompressionFlushesSubnormals(PatchedReference):
    """Fused f8 weight decompression Convert(f8e4m3/f8e5m2 Constant) -> [Subtract] -> Multiply(scale)
    decodes subnormal f8 codes (exponent field 0) as zero (FTZ in the FP8 unpacker); a plain Convert
    is right."""

    device_name = "STT_F8FTZ"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Convert":
            return
        src = node.input_value(0).node
        et = node.get_input_element_type(0)
        if src.type_name != "Constant" or et not in (Type.f8e4m3, Type.f8e5m2) or src.data is None:
            return
        readers = [t.get_node() for t in node.output(0).get_target_inputs()]
        if not any(r.type_name in ("Multiply", "Subtract") for r in readers):
            return
        codes = np.asarray(src.data).view(np.uint8)
        expo = (codes >> 3) & 0xF if et == Type.f8e4m3 else (codes >> 2) & 0x1F
        flushed = np.where(expo == 0, codes & 0x80, codes).astype(np.uint8)
        node.set_argument(0, opset.constant(flushed, et).output(0))


#: stimulus faults: class name -> the op versions it gets wrong (tests/ops/test_stimulus_types.py).
FAULTS = {
    "FakeConvertE5M2NoSaturation": ("FakeConvert-13",),
    "BF16ConvertNoNaNCheck": ("Convert-1",),
    "StringsCutAtNul": ("StringTensorUnpack-15", "StringTensorPack-15"),
    "StringPackEmptyKeepsPrevious": ("StringTensorPack-15",),
    "F16ArithmeticSaturates": ("Add-1", "Subtract-1", "Multiply-1", "Exp-1", "Power-1", "SquaredDifference-1"),
    "ConvertToF8Truncates": ("Convert-1",),
    "ConvertI64ThroughI32": ("Convert-1",),
    "ConvertNarrowingToSignedSaturates": ("Convert-1",),
    "I32ArithmeticThroughF32": ("Add-1", "Subtract-1", "Multiply-1"),
}
#: graph-pattern faults (tests/suites/test_graph_faults_types.py).
GRAPH_FAULTS = ("DecompressionIgnoresScalarZeroPoint", "F8DecompressionFlushesSubnormals")
