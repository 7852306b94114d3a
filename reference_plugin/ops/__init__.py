"""The REFERENCE device's kernels: one module per op, an explicit registry, versioned lookup.

Each kernel is the op's formula as the specification states it, and nothing else: whatever
exists for speed is in :mod:`reference_plugin.fast`, tested against these formulas. The plain
interpreter (:mod:`reference_plugin.evaluate`) runs the formulas; the device's programs run
:func:`reference_plugin.fast.make_kernel`'s kernels.

Each ``op_<name>.py`` module registers its kernel classes with ``@register_op("Relu", since=1)``.
:func:`load_op` returns the kernel for the highest registered version not above the requested
one (a kernel registered ``since=8`` serves Gather-8 and any later version without a new kernel).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from ovconform.errors import CompileError, OVConformError, UnsupportedOpError
from ovconform.ir._opdef import canonical_type_name
from reference_plugin.ops import (
    _family_activation,
    _family_advanced,
    _family_bitwise,
    _family_detect,
    _family_index,
    _family_layout,
    _family_misc,
    _family_norm,
    _family_recurrent,
    _family_signal,
    _family_trig,
)
from reference_plugin.ops._base import OpRun, RunContext

if TYPE_CHECKING:
    from ovconform.ir import Node

K = TypeVar("K", bound=type[OpRun])

#: Every kernel module, imported on first lookup (explicit: no scanning of the package).
OP_MODULES: tuple[str, ...] = (
    "op_parameter", "op_constant", "op_result", "op_convert", "op_convert_like",
    "op_add", "op_subtract", "op_multiply", "op_divide", "op_power", "op_maximum", "op_minimum",
    "op_squared_difference", "op_floor_mod", "op_mod",
    "op_equal", "op_not_equal", "op_less", "op_less_equal", "op_greater", "op_greater_equal",
    "op_logical_and", "op_logical_or", "op_logical_not", "op_logical_xor", "op_xor", "op_select",
    "op_abs", "op_negative", "op_exp", "op_log", "op_sqrt", "op_relu", "op_sigmoid", "op_tanh",
    "op_erf", "op_erf_inv", "op_gelu", "op_clamp", "op_softmax",
    "op_mat_mul", "op_convolution", "op_group_convolution", "op_max_pool", "op_avg_pool",
    "op_reduce_sum", "op_reduce_mean", "op_reduce_max",
    "op_reshape", "op_transpose", "op_squeeze", "op_unsqueeze", "op_concat", "op_split",
    "op_variadic_split", "op_gather", "op_broadcast", "op_shape_of", "op_strided_slice",
    "op_read_value", "op_assign",
    "op_if", "op_loop", "op_tensor_iterator",
    "op_binary_convolution", "op_grouped_mat_mul", "op_rgb_to_nv12", "op_bgr_to_nv12", "op_string_tensor_pack",
    "op_string_tensor_unpack",
    "op_matrix_nms", "op_multiclass_nms", "op_nms_rotated",
    *_family_trig.OP_MODULES, *_family_activation.OP_MODULES, *_family_bitwise.OP_MODULES,
    *_family_norm.OP_MODULES, *_family_layout.OP_MODULES, *_family_index.OP_MODULES, *_family_advanced.OP_MODULES,
    *_family_recurrent.OP_MODULES, *_family_signal.OP_MODULES, *_family_misc.OP_MODULES,
    *_family_detect.OP_MODULES,
)

_REGISTRY: dict[str, dict[int, type[OpRun]]] = {}
_loaded = False


def register_op(op_type: str, since: int) -> Callable[[K], K]:
    """Class decorator: ``cls`` computes ``op_type`` from version ``since`` on.

    :param op_type: the op type name as in the op-definition table (``"Relu"``, not ``"ReLU"``).
    :param since: the first op version the kernel implements.
    :return: the decorator (it returns the class unchanged, with ``op_type``/``since`` set).
    """

    def deco(cls: K) -> K:
        versions = _REGISTRY.setdefault(op_type, {})
        if since in versions:
            raise ValueError(f"a kernel for {op_type}-{since} is registered twice "
                             f"({versions[since].__name__} and {cls.__name__})")
        versions[since] = cls
        cls.op_type, cls.since = op_type, since
        return cls

    return deco


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for name in OP_MODULES:
            importlib.import_module(f"reference_plugin.ops.{name}")


def load_op(op_type: str, version: int) -> type[OpRun]:
    """The kernel class for ``op_type``-``version``: the highest registered version ≤ ``version``.

    :raises UnsupportedOpError: listing the registered op types (or versions) when none fits.
    """
    _load()
    op_type = canonical_type_name(op_type)
    versions = _REGISTRY.get(op_type)
    if not versions:
        raise UnsupportedOpError(
            f"the REFERENCE device has no kernel for op type {op_type!r}; kernels exist for: "
            f"{', '.join(sorted(_REGISTRY))}.")
    usable = [v for v in versions if v <= version]
    if not usable:
        raise UnsupportedOpError(
            f"the REFERENCE device has no kernel for {op_type}-{version}; registered versions start "
            f"at {sorted(versions)}.")
    return versions[max(usable)]


def make_kernel(node: Node) -> OpRun:
    """Build the formula kernel for ``node`` (its precomputation runs here, once).

    :raises UnsupportedOpError: when no kernel fits the node's op type and version.
    :raises CompileError: naming the node, when the kernel rejects the node's attributes or inputs.
    """
    return build_kernel(load_op(node.type_name, node.version), node)


def build_kernel(cls: type[OpRun], node: Node) -> OpRun:
    """``cls(node)``, its failures turned into a :class:`CompileError` naming the node (``cls`` is
    a kernel class, or :mod:`reference_plugin.fast`'s version of one).

    :raises CompileError: naming the node, when the kernel rejects the node's attributes or inputs.
    """
    try:
        return cls(node)
    except CompileError:
        raise
    except (OVConformError, ValueError, TypeError, KeyError, IndexError) as e:
        label = f"{node.type_name}-{node.version} node {node.friendly_name!r}"
        text = str(e) if label in str(e) else f"{label}: {e}"
        raise CompileError(f"building the {cls.__name__} kernel failed: {text}") from e


def registered_ops() -> dict[str, list[int]]:
    """Every registered op type and the versions its kernels start at."""
    _load()
    return {t: sorted(v) for t, v in sorted(_REGISTRY.items())}


__all__ = ["OP_MODULES", "OpRun", "RunContext", "build_kernel", "load_op", "make_kernel", "register_op",
           "registered_ops"]
