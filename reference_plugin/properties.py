"""The REFERENCE device's properties, its execution-info keys, the f16 precision rule and logging.

Properties follow the TEMPLATE plugin's lists (seed 002 ``Plugin::get_property``, seed 000
``CompiledModel::get_property``):

* plugin, read-only: SUPPORTED_PROPERTIES, AVAILABLE_DEVICES, FULL_DEVICE_NAME,
  DEVICE_ARCHITECTURE, OPTIMIZATION_CAPABILITIES, DEVICE_TYPE, RANGE_FOR_ASYNC_INFER_REQUESTS,
  EXECUTION_DEVICES and the internal CACHING_PROPERTIES (:data:`CACHING`);
* plugin, read-write: the base class's entries (``ovconform.contract.plugin.Plugin._declare_properties``:
  DEVICE_ID, PERF_COUNT, PERFORMANCE_HINT, PERFORMANCE_HINT_NUM_REQUESTS, INFERENCE_PRECISION_HINT
  (here f32, f16), EXECUTION_MODE_HINT, NUM_STREAMS, INFERENCE_NUM_THREADS, LOG_LEVEL,
  MODEL_PRIORITY and the internal EXCLUSIVE_ASYNC_REQUESTS), DEVICE_ID replaced by
  :func:`device_id_property` (the id ``"0"``), and :data:`OWN_PROPERTIES`: DISABLE_TRANSFORMATIONS
  and REFERENCE's REFERENCE_PROCESS_STREAMS (streams in worker processes; by default on under the
  THROUGHPUT and CUMULATIVE_THROUGHPUT hints with two streams or more, see
  :func:`resolve_process_streams`), and the weightless-blob trio CACHE_MODE, ENABLE_WEIGHTLESS and
  WEIGHTS_PATH (:func:`weightless`; the blob format is in ``_blob.py``);
* compiled model: MODEL_NAME, SUPPORTED_PROPERTIES, EXECUTION_DEVICES, LOADED_FROM_CACHE,
  OPTIMAL_NUMBER_OF_INFER_REQUESTS (read-only) and DEVICE_ID, PERF_COUNT and, as the current
  TEMPLATE plugin lists it, PERFORMANCE_HINT (read-write; changing it after compilation changes
  nothing). Every other compile-time value stays readable on the compiled model, unlisted, as
  the TEMPLATE plugin's ``m_cfg.Get(name)`` fallback does.

EXECUTION_MODE_HINT and MODEL_PRIORITY are stored and read back but change nothing (the
reference always computes as accurately as its kernels allow and runs one model at a time).
INFERENCE_NUM_THREADS sets the threads per stream of the task executor, and caps the threads one
inference computes with (BLAS and the block-wise elementwise work; 0, the default: the cores the
streams share).

Every name is in the host's catalogue (:mod:`ovconform.properties`), DISABLE_TRANSFORMATIONS
included, so nothing is registered here. AVAILABLE_DEVICES is ``[""]`` (one unnamed device,
listed by the Core as ``"REFERENCE"``) while DEVICE_ID is ``"0"``, so a compiled model runs on
``"REFERENCE.0"`` as the TEMPLATE plugin's does.
"""

from __future__ import annotations

import logging
from typing import Any, Final

import numpy as np

from ovconform import properties as P
from ovconform.ir import Type

DEVICE_NAME: Final = "REFERENCE"
FULL_DEVICE_NAME: Final = "ovconform REFERENCE device (numpy reference kernels)"
#: DEVICE_ARCHITECTURE: part of the cache key and checked when a blob is imported.
ARCHITECTURE: Final = "REFERENCE"
DEVICE_IDS: Final = ("0",)

PLUGIN_RO: Final = (
    P.SUPPORTED_PROPERTIES, P.AVAILABLE_DEVICES, P.FULL_DEVICE_NAME, P.DEVICE_ARCHITECTURE,
    P.OPTIMIZATION_CAPABILITIES, P.DEVICE_TYPE, P.RANGE_FOR_ASYNC_INFER_REQUESTS, P.EXECUTION_DEVICES,
    P.CACHING_PROPERTIES,
)
COMPILED_RO: Final = (P.MODEL_NAME, P.SUPPORTED_PROPERTIES, P.EXECUTION_DEVICES, P.LOADED_FROM_CACHE,
                      P.OPTIMAL_NUMBER_OF_INFER_REQUESTS)
COMPILED_RW: Final = (P.DEVICE_ID, P.PERF_COUNT, P.PERFORMANCE_HINT)

# -- execution-graph rt_info keys (the string values of ov::exec_model_info) ---------------------
LAYER_TYPE: Final = "layerType"
EXECUTION_ORDER: Final = "execOrder"
IMPL_TYPE: Final = "primitiveType"
PERF_COUNTER: Final = "execTimeMcs"
ORIGINAL_NAMES: Final = "originalLayersNames"
RUNTIME_PRECISION: Final = "runtimePrecision"
OUTPUT_PRECISIONS: Final = "outputPrecisions"
OUTPUT_LAYOUTS: Final = "outputLayouts"
NOT_EXECUTED: Final = "not_executed"


#: Run each stream's inferences in a worker process (reference_plugin/fast/process_streams.py), so
#: streams compute in parallel; REFERENCE's own property (OpenVINO has no equivalent).
PROCESS_STREAMS: Final = "REFERENCE_PROCESS_STREAMS"
P.register_property(P.PropertySpec(PROCESS_STREAMS, P.parse_bool, "true or false", P.Mutability.RW,
                                   "REFERENCE: run each stream's inferences in a worker process"))


def device_id_property(device_name: str) -> P.Declared:
    """DEVICE_ID: ``"0"``, the one id (the base class would take ``device_ids``, ``[""]``)."""

    def known_id(value: str) -> str | None:
        return None if value in DEVICE_IDS else (
            f"device {device_name!r} has no such id. Supported values: {list(DEVICE_IDS)}.")

    return P.Declared(P.DEVICE_ID, DEVICE_IDS[0], check=known_id)


#: The read-write properties REFERENCE adds to the base class's (seed 002's ``Configuration``).
OWN_PROPERTIES: Final = (
    P.Declared(P.DISABLE_TRANSFORMATIONS, False),
    P.Declared(PROCESS_STREAMS, False),
    P.Declared(P.CACHE_MODE, P.CacheMode.OPTIMIZE_SPEED),
    P.Declared(P.ENABLE_WEIGHTLESS, False),
    P.Declared(P.WEIGHTS_PATH, ""),
)

#: CACHING_PROPERTIES: the device's architecture and every plugin property the compiled model reads
#: or carries in its blob (the Core's cache key takes their current values, so a plugin-level
#: set_property of one of them, e.g. INFERENCE_PRECISION_HINT f16 -> f32, compiles anew instead of
#: importing the blob made under the old value, whose configuration would win on import).
CACHING: Final = (
    P.DEVICE_ARCHITECTURE, P.INFERENCE_PRECISION_HINT, P.EXECUTION_MODE_HINT, P.PERF_COUNT,
    P.DISABLE_TRANSFORMATIONS, P.PERFORMANCE_HINT, P.PERFORMANCE_HINT_NUM_REQUESTS, P.NUM_STREAMS,
    P.INFERENCE_NUM_THREADS, PROCESS_STREAMS, P.CACHE_MODE, P.ENABLE_WEIGHTLESS,
)


def weightless(config: P.PropertyStore) -> bool:
    """Whether export leaves the weights out (OpenVINO's ``is_weightless_enabled``): an explicit
    ENABLE_WEIGHTLESS decides; otherwise CACHE_MODE=OPTIMIZE_SIZE."""
    if config.is_explicit(P.ENABLE_WEIGHTLESS):
        return bool(config.get(P.ENABLE_WEIGHTLESS))
    return config.get(P.CACHE_MODE) == P.CacheMode.OPTIMIZE_SIZE


def resolve_streams(config: P.PropertyStore) -> int:
    """The stream count a compiled model gets: NUM_STREAMS when positive; AUTO/NUMA (or
    NUM_STREAMS left unset under the THROUGHPUT or CUMULATIVE_THROUGHPUT hint, as OpenVINO
    CPU does) follow the performance hint (1 for LATENCY, one per core up to 4 for THROUGHPUT),
    capped by a positive PERFORMANCE_HINT_NUM_REQUESTS."""
    requested = config.get(P.NUM_STREAMS)
    hint = config.get(P.PERFORMANCE_HINT)
    if not config.is_explicit(P.NUM_STREAMS) and hint in (P.PerformanceMode.THROUGHPUT,
                                                          P.PerformanceMode.CUMULATIVE_THROUGHPUT):
        requested = P.STREAMS_AUTO
    streams = P.resolve_num_streams(requested, config.get(P.PERFORMANCE_HINT))
    wanted = config.get(P.PERFORMANCE_HINT_NUM_REQUESTS)
    if requested < 0 and wanted > 0:
        streams = min(streams, wanted)
    return streams


def resolve_process_streams(config: P.PropertyStore, streams: int, follows_hint: bool) -> bool:
    """Whether a compiled model runs its streams in worker processes (REFERENCE_PROCESS_STREAMS).

    A value the user set wins, as does a device's own default when the device does not follow
    the hint (a device derived from REFERENCE: code it adds may not reach a worker process).
    Otherwise the THROUGHPUT and CUMULATIVE_THROUGHPUT hints turn it on when there are two
    streams or more: streams as threads share one GIL, as processes they compute in parallel
    (:mod:`reference_plugin.fast.process_streams`)."""
    if config.is_explicit(PROCESS_STREAMS) or not follows_hint:
        return bool(config.get(PROCESS_STREAMS))
    throughput = config.get(P.PERFORMANCE_HINT) in (P.PerformanceMode.THROUGHPUT,
                                                    P.PerformanceMode.CUMULATIVE_THROUGHPUT)
    return throughput and streams > 1


# -- inference precision ------------------------------------------------------------------------
def rounds_to_f16(element_type: Type, precision: Type) -> bool:
    """True when values of ``element_type`` are rounded through float16 under ``precision``.

    The rule: with INFERENCE_PRECISION_HINT=f16, every f32 value the device produces (bound
    inputs, constants, every node output, variable reads) is rounded to the nearest float16
    (ties to even; beyond ±65504 it becomes ±inf) and kept as float32 before any node reads it.
    Other element types (f64, f16, bf16, integers, boolean) are never touched. Result outputs
    are f32 tensors holding float16-representable values.

    This emulates a device that stores every f32 tensor as float16 but computes each op at
    the kernel's own precision: a kernel's result is rounded to float32 first and then to
    float16, which in rare ties can differ by one float16 ulp from rounding the exact result
    once. Constant folding applies the same rule, so transformations never change results.
    """
    return precision == Type.f16 and element_type == Type.f32


def round_f16(array: np.ndarray) -> np.ndarray:
    """float32 ``array`` rounded through float16 (a new float32 array)."""
    with np.errstate(all="ignore"):
        return array.astype(np.float16).astype(np.float32)


def runtime_precision(element_type: Type, precision: Type) -> Type:
    """The precision a value of ``element_type`` is computed in under ``precision``."""
    return Type.f16 if rounds_to_f16(element_type, precision) else element_type


# -- logging ------------------------------------------------------------------------------------
LOGGER: Final = logging.getLogger("reference_plugin")
_LEVELS: Final = (P.LogLevel.NO, P.LogLevel.ERR, P.LogLevel.WARNING, P.LogLevel.INFO, P.LogLevel.DEBUG,
                  P.LogLevel.TRACE)
_PY_LEVELS: Final = {P.LogLevel.ERR: logging.ERROR, P.LogLevel.WARNING: logging.WARNING,
                     P.LogLevel.INFO: logging.INFO, P.LogLevel.DEBUG: logging.DEBUG,
                     P.LogLevel.TRACE: logging.DEBUG}


def log(config: P.PropertyStore, level: P.LogLevel, message: str, *args: Any) -> None:
    """Log ``message`` on the ``reference_plugin`` logger when LOG_LEVEL allows ``level``."""
    configured = config.get_or(P.LOG_LEVEL, P.LogLevel.NO)
    if _LEVELS.index(level) <= _LEVELS.index(configured):
        LOGGER.log(_PY_LEVELS[level], message, *args)
