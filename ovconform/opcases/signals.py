"""Case strategies of the "signal" family: DFT-7, IDFT-7, RDFT-9, IRDFT-9, STFT-15, ISTFT-16.

Data are f32 or f16 values in [-2, 2] of rank 1..4 signal dims (plus the complex dim of 2 for
DFT/IDFT/IRDFT); 1..3 different axes in any order, a third of them negative; the product of the
transformed lengths stays at most 64 (the accumulating tolerance's default K). ``axes`` and
``signal_size`` are i32/i64 Constants, sometimes Parameters (OpenVINO CPU runs them dynamically).
``signal_size`` is absent about a third of the time; its entries pad, trim or are -1.

Left out, because OpenVINO CPU (2026.4) cannot run them although the spec defines them (REFERENCE
implements them; tests/ops/test_signals.py checks the values):

* RDFT/IRDFT with ``axes`` or ``signal_size`` as a Parameter (CPU fails to compile: "Cannot get
  dims for non static shape"): they are Constants for RDFT and IRDFT.
* RDFT/IRDFT with ``-1`` in ``signal_size`` (CPU fails to compile: "cannot create std::vector
  larger than max_size()"): their sizes are explicit.
* RDFT with a signal size larger than the axis (CPU: "Signal size greater than input size is not
  supported yet"): RDFT sizes stay in ``[1, length]``.
* IRDFT whose last-axis output length ``S`` is ``>= 2 * D`` (``D`` the input length), so that the
  half spectrum must be zero-padded to ``S // 2 + 1`` values: CPU gives wrong values there, and the
  spec's text (pad the input) and formula (pad the Hermitian-extended spectrum) disagree on it, so
  ``S`` stays in ``[1, 2 * D - 1]``.

Drawn, but recorded as OpenVINO CPU deviations (tests/reference/deviations_signal.py, skipped by the
cross-check): IRDFT zero-padding an axis other than the last listed one, and IRDFT over three or
more axes with a non-default signal size.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed

MAX_SIGNAL = 64
#: OpenVINO CPU cannot compile these with ``axes`` or ``signal_size`` as a Parameter
#: ("Cannot get dims for non static shape").
CONST_INDEX_ONLY = frozenset({"RDFT", "IRDFT"})
INDEX_TYPES = (Type.i32, Type.i64)


def _draw_signal(draw: Draw[Any], max_side: int = 6) -> tuple[list[int], list[int]]:
    """Signal dims (rank 1..4, at most ~200 elements) and 1..3 different axes in any order."""
    rank = draw(st.integers(1, 4))
    dims = [draw(st.integers(1, max_side)) for _ in range(rank)]
    while math.prod(dims) > 200:
        dims[dims.index(max(dims))] -= 1
    count = draw(st.integers(1, min(3, rank)))
    axes = draw(st.permutations(range(rank)))[:count]
    return dims, list(axes)


def _spell_axes(draw: Draw[Any], axes: list[int], signal_rank: int) -> list[int]:
    return [a - signal_rank if draw(st.integers(0, 2)) == 0 else a for a in axes]


def _limit(sizes: list[int]) -> list[int]:
    """Shrink the largest sizes until their product is at most MAX_SIGNAL."""
    sizes = list(sizes)
    while math.prod(sizes) > MAX_SIGNAL:
        sizes[sizes.index(max(sizes))] -= 1
    return sizes


def _index_node(draw: Draw[Any], b: CaseBuilder, name: str, values: list[int], may_be_param: bool = True) -> Node:
    et = draw(st.sampled_from(INDEX_TYPES))
    as_param = may_be_param and draw(st.integers(0, 4)) == 0
    return b.input(name, np.array(values, dtype=et.to_dtype()), not as_param)


def _finish(draw: Draw[Any], op: str, version: int, builder: Any, data_shape: list[int], axes: list[int],
            spelled: list[int], sizes: list[int] | None) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(data_shape, et, -2, 2))
    axes_node = _index_node(draw, b, "axes", spelled, op not in CONST_INDEX_ONLY)
    size_node = None if sizes is None else _index_node(draw, b, "signal_size", sizes, op not in CONST_INDEX_ONLY)
    return b.finish(op, version, builder(data, axes_node, size_node), __doc__.split("\n\n")[1])


def _complex_case(op: str, builder: Any) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        dims, axes = _draw_signal(draw)
        lengths = _limit([dims[a] for a in axes])
        for a, n in zip(axes, lengths, strict=True):
            dims[a] = n
        sizes = None
        if draw(st.integers(0, 2)) > 0:
            sizes = [draw(st.one_of(st.just(-1), st.integers(1, 6))) for _ in axes]
            full = _limit([dims[a] if s == -1 else s for a, s in zip(axes, sizes, strict=True)])
            sizes = [s if s == -1 else f for s, f in zip(sizes, full, strict=True)]
        spelled = _spell_axes(draw, axes, len(dims))
        return _finish(draw, op, 7, builder, [*dims, 2], axes, spelled, sizes)

    build.__name__ = f"case_{op}"
    register_case(op, 7)(build)


_complex_case("DFT", opset.dft)
_complex_case("IDFT", opset.idft)


@register_case("RDFT", 9)
def case_rdft(draw: Draw[Any]) -> OpCase:
    dims, axes = _draw_signal(draw)
    lengths = _limit([dims[a] for a in axes])
    for a, n in zip(axes, lengths, strict=True):
        dims[a] = n
    sizes = None
    if draw(st.integers(0, 2)) > 0:
        sizes = [draw(st.integers(1, dims[a])) for a in axes]
    spelled = _spell_axes(draw, axes, len(dims))
    return _finish(draw, "RDFT", 9, opset.rdft, dims, axes, spelled, sizes)


@register_case("IRDFT", 9)
def case_irdft(draw: Draw[Any]) -> OpCase:
    dims, axes = _draw_signal(draw)
    dims[axes[-1]] = max(dims[axes[-1]], 2)  # without a signal size the output length is 2 * (D - 1)
    out = [dims[a] for a in axes]
    out[-1] = 2 * (out[-1] - 1)
    sizes = None
    if draw(st.integers(0, 2)) > 0:
        pad = draw(st.integers(0, 3)) == 0  # padding other axes: a recorded OpenVINO CPU deviation
        out = [draw(st.integers(1, 6 if pad else dims[a])) for a in axes[:-1]]
        out.append(draw(st.integers(1, 2 * dims[axes[-1]] - 1)))
        sizes = out
    while math.prod(out) > MAX_SIGNAL:  # keep the transform small: shrink the input, then the sizes
        i = out.index(max(out))
        if sizes is None:
            a = axes[i]
            dims[a] -= 1
            out[i] = 2 * (dims[a] - 1) if i == len(out) - 1 else dims[a]
        else:
            out[i] -= 1
    spelled = _spell_axes(draw, axes, len(dims))
    return _finish(draw, "IRDFT", 9, opset.irdft, [*dims, 2], axes, spelled, sizes)


# -- STFT-15 and ISTFT-16 -------------------------------------------------------------------------------------------

@register_case("STFT", 15)
def case_stft(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    length = draw(st.integers(1, 24))
    batch = draw(st.one_of(st.none(), st.integers(1, 3)))
    size = draw(st.integers(1, min(length, 16)))
    step = draw(st.integers(1, 6))
    window_length = draw(st.integers(1, size))
    b = CaseBuilder(draw_seed(draw))
    signal = b.param("signal", b.uniform([length] if batch is None else [batch, length], et, -2, 2))
    window = b.input("window", b.uniform([window_length], et, -1, 1), draw(st.booleans()))
    size_node = _scalar_node(draw, b, "frame_size", size)
    step_node = _scalar_node(draw, b, "frame_step", step)
    return b.finish("STFT", 15, opset.stft(signal, window, size_node, step_node, draw(st.booleans())), STFT_NOTE)


@register_case("ISTFT", 16)
def case_istft(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    center = draw(st.booleans())
    given_length = draw(st.booleans())
    odd_allowed = not center or given_length  # see the ISTFT deviation record: keep away from it entirely
    size = draw(st.integers(1, 12) if odd_allowed else st.integers(1, 6).map(lambda n: 2 * n))
    frames = draw(st.integers(2 if center else 1, 5))
    window_length = draw(st.integers(1, size)) if center and not given_length else size
    step = draw(st.integers(1, window_length))
    batch = draw(st.one_of(st.none(), st.integers(1, 3)))
    b = CaseBuilder(draw_seed(draw))
    shape = [size // 2 + 1, frames, 2] if batch is None else [batch, size // 2 + 1, frames, 2]
    data = b.param("data", b.uniform(shape, et, -2, 2))
    window = b.input("window", b.uniform([window_length], et, 0.5, 1), draw(st.booleans()))
    args = [data, window, _scalar_node(draw, b, "frame_size", size), _scalar_node(draw, b, "frame_step", step),
            center, draw(st.booleans())]
    if given_length:
        default = (frames - 1) * step + (0 if center else size)
        args.append(_scalar_node(draw, b, "signal_length", draw(st.integers(1, default + 4)), allow_1d=True))
    return b.finish("ISTFT", 16, opset.istft(*args), STFT_NOTE)


def _scalar_node(draw: Draw[Any], b: CaseBuilder, name: str, value: int, allow_1d: bool = False) -> Node:
    et = draw(st.sampled_from(INDEX_TYPES))
    shape = (1,) if allow_1d and draw(st.booleans()) else ()
    return b.input(name, np.full(shape, value, dtype=et.to_dtype()), draw(st.integers(0, 2)) > 0)


STFT_NOTE = ("STFT: signals of 1..24 samples (optionally batched), frame_size up to 16, any window length up to "
             "it. ISTFT: window values in [0.5, 1] and frame_step <= window length, and the window as long as "
             "frame_size unless center is set and signal_length absent, so the overlap-added squared window has no "
             "zero where samples are kept (the division there is not defined); signal_length >= 1 (OpenVINO CPU "
             "crashes on 0). With center and no signal_length frame_size is even: for an odd one OpenVINO's shape "
             "inference and CPU give one sample more than the spec (a recorded deviation; the IR round trip "
             "would differ too).")
