"""The property catalogue: OpenVINO's property names, value types, parsing and validation.

Names are OpenVINO's strings ("PERFORMANCE_HINT", "NUM_STREAMS", ...). Enumerated values are
``StrEnum`` members, so ``PerformanceMode.LATENCY == "LATENCY"`` and ``str()`` gives the
OpenVINO spelling. Values parse from their native Python form and from strings
(``"YES"``/``"true"`` for booleans, ``"3"`` for integers, ``"f32"`` for element types).

Devices declare which properties they support with ``Declared`` entries and keep their
current values in a ``PropertyStore`` (both in :mod:`ovconform.contract.property_store`, and
importable from here); a bad write raises :class:`~ovconform.errors.PropertyError` naming the
property, the bad value and the supported values (or the supported property names).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ovconform.errors import PropertyError, ValidationError
from ovconform.ir import ALL_TYPES, Type, as_type

if TYPE_CHECKING:  # the re-exported store names (loaded on first use, see the end of this module)
    from ovconform.contract.property_store import Declared as Declared
    from ovconform.contract.property_store import PropertyStore as PropertyStore
    from ovconform.contract.property_store import resolve_num_streams as resolve_num_streams

# -- names ----------------------------------------------------------------------------------------
SUPPORTED_PROPERTIES: Final = "SUPPORTED_PROPERTIES"
AVAILABLE_DEVICES: Final = "AVAILABLE_DEVICES"
FULL_DEVICE_NAME: Final = "FULL_DEVICE_NAME"
DEVICE_ARCHITECTURE: Final = "DEVICE_ARCHITECTURE"
DEVICE_TYPE: Final = "DEVICE_TYPE"
DEVICE_UUID: Final = "DEVICE_UUID"
DEVICE_LUID: Final = "DEVICE_LUID"
DEVICE_GOPS: Final = "DEVICE_GOPS"
DEVICE_THERMAL: Final = "DEVICE_THERMAL"
OPTIMIZATION_CAPABILITIES: Final = "OPTIMIZATION_CAPABILITIES"
RANGE_FOR_ASYNC_INFER_REQUESTS: Final = "RANGE_FOR_ASYNC_INFER_REQUESTS"
RANGE_FOR_STREAMS: Final = "RANGE_FOR_STREAMS"
EXECUTION_DEVICES: Final = "EXECUTION_DEVICES"
IMPORT_EXPORT_SUPPORT: Final = "IMPORT_EXPORT_SUPPORT"
CACHING_PROPERTIES: Final = "CACHING_PROPERTIES"
MODEL_NAME: Final = "MODEL_NAME"
NETWORK_NAME: Final = "NETWORK_NAME"
LOADED_FROM_CACHE: Final = "LOADED_FROM_CACHE"
OPTIMAL_NUMBER_OF_INFER_REQUESTS: Final = "OPTIMAL_NUMBER_OF_INFER_REQUESTS"
OPTIMAL_BATCH_SIZE: Final = "OPTIMAL_BATCH_SIZE"
MAX_BATCH_SIZE: Final = "MAX_BATCH_SIZE"
DEVICE_ID: Final = "DEVICE_ID"
PERF_COUNT: Final = "PERF_COUNT"
PERFORMANCE_HINT: Final = "PERFORMANCE_HINT"
PERFORMANCE_HINT_NUM_REQUESTS: Final = "PERFORMANCE_HINT_NUM_REQUESTS"
INFERENCE_PRECISION_HINT: Final = "INFERENCE_PRECISION_HINT"
EXECUTION_MODE_HINT: Final = "EXECUTION_MODE_HINT"
MODEL_PRIORITY: Final = "MODEL_PRIORITY"
NUM_STREAMS: Final = "NUM_STREAMS"
INFERENCE_NUM_THREADS: Final = "INFERENCE_NUM_THREADS"
COMPILATION_NUM_THREADS: Final = "COMPILATION_NUM_THREADS"
ENABLE_HYPER_THREADING: Final = "ENABLE_HYPER_THREADING"
ENABLE_CPU_PINNING: Final = "ENABLE_CPU_PINNING"
SCHEDULING_CORE_TYPE: Final = "SCHEDULING_CORE_TYPE"
ENABLE_MMAP: Final = "ENABLE_MMAP"
LOG_LEVEL: Final = "LOG_LEVEL"
CACHE_DIR: Final = "CACHE_DIR"
CACHE_MODE: Final = "CACHE_MODE"
WEIGHTS_PATH: Final = "WEIGHTS_PATH"
ENABLE_WEIGHTLESS: Final = "ENABLE_WEIGHTLESS"
#: ``ov::hint::compiled_blob``: compile_model imports this blob instead of compiling (Core-level).
COMPILED_BLOB: Final = "COMPILED_BLOB"
EXCLUSIVE_ASYNC_REQUESTS: Final = "EXCLUSIVE_ASYNC_REQUESTS"
#: ``ov::cache_encryption_callbacks`` (write-only): ``[encrypt, decrypt]``, each ``bytes -> bytes``;
#: an exported (and so a cached) blob is encrypted with the first and imported with the second.
CACHE_ENCRYPTION_CALLBACKS: Final = "CACHE_ENCRYPTION_CALLBACKS"
DISABLE_TRANSFORMATIONS: Final = "DISABLE_TRANSFORMATIONS"
#: Pre-2.0 names the seeds still use (SUPPORTED_PROPERTIES replaces both).
SUPPORTED_METRICS: Final = "SUPPORTED_METRICS"
SUPPORTED_CONFIG_KEYS: Final = "SUPPORTED_CONFIG_KEYS"

#: Properties the Core keeps for itself (never sent to a plugin).
CORE_PROPERTIES: Final = frozenset({CACHE_DIR, ENABLE_MMAP})


# -- enumerated values -------------------------------------------------------------------------
class Mutability(StrEnum):
    RO = "RO"
    RW = "RW"
    WO = "WO"


class PerformanceMode(StrEnum):
    LATENCY = "LATENCY"
    THROUGHPUT = "THROUGHPUT"
    CUMULATIVE_THROUGHPUT = "CUMULATIVE_THROUGHPUT"


class ExecutionMode(StrEnum):
    PERFORMANCE = "PERFORMANCE"
    ACCURACY = "ACCURACY"


class Priority(StrEnum):
    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"


class LogLevel(StrEnum):
    NO = "LOG_NONE"
    ERR = "LOG_ERROR"
    WARNING = "LOG_WARNING"
    INFO = "LOG_INFO"
    DEBUG = "LOG_DEBUG"
    TRACE = "LOG_TRACE"


class DeviceType(StrEnum):
    INTEGRATED = "INTEGRATED"
    DISCRETE = "DISCRETE"


class SchedulingCoreType(StrEnum):
    ANY_CORE = "ANY_CORE"
    PCORE_ONLY = "PCORE_ONLY"
    ECORE_ONLY = "ECORE_ONLY"


class CacheMode(StrEnum):
    OPTIMIZE_SIZE = "OPTIMIZE_SIZE"
    OPTIMIZE_SPEED = "OPTIMIZE_SPEED"


class Capability(StrEnum):
    """Values of OPTIMIZATION_CAPABILITIES."""

    FP32 = "FP32"
    BF16 = "BF16"
    FP16 = "FP16"
    INT8 = "INT8"
    INT16 = "INT16"
    BIN = "BIN"
    WINOGRAD = "WINOGRAD"
    EXPORT_IMPORT = "EXPORT_IMPORT"


#: NUM_STREAMS special values (as in ``ov::streams::AUTO`` / ``NUMA``).
STREAMS_AUTO: Final = -1
STREAMS_NUMA: Final = -2
#: The largest NUM_STREAMS accepted (each stream is a worker thread).
MAX_NUM_STREAMS: Final = 1024


# -- parsers (raise ValueError/TypeError; PropertySpec turns that into a PropertyError) ----------
def parse_bool(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str) and value.strip().upper() in ("YES", "TRUE", "1", "NO", "FALSE", "0"):
        return value.strip().upper() in ("YES", "TRUE", "1")
    raise ValueError(value)


def parse_int(value: Any, minimum: int = 0) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(value)
    if isinstance(value, str):
        value = int(value.strip())
    if not isinstance(value, (int, np.integer)) or int(value) < minimum:
        raise ValueError(value)
    return int(value)


def parse_num_streams(value: Any) -> int:
    if isinstance(value, str) and value.strip().upper() in ("AUTO", "NUMA"):
        return STREAMS_AUTO if value.strip().upper() == "AUTO" else STREAMS_NUMA
    streams = parse_int(value, minimum=STREAMS_NUMA)
    if streams > MAX_NUM_STREAMS:  # each stream is a thread: 10**20 (seen in a fuzzed blob) must not allocate
        raise ValueError(value)
    return streams


def parse_str(value: Any) -> str:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def parse_str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [parse_str(v) for v in value]


def parse_blob(value: Any) -> bytes:
    """An exported blob: bytes, a bytearray/memoryview, a uint8 array or a u8 Tensor."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    data = value if isinstance(value, np.ndarray) else getattr(value, "data", None)
    if isinstance(data, np.ndarray) and data.dtype in (np.uint8, np.int8):
        return data.tobytes()
    raise TypeError(value)


@dataclass(frozen=True)
class EncryptionCallbacks:
    """The value of CACHE_ENCRYPTION_CALLBACKS (``ov::EncryptionCallbacks``): ``encrypt`` and
    ``decrypt``, each taking and returning ``bytes``; ``decrypt(encrypt(b)) == b``."""

    encrypt: Callable[[bytes], bytes]
    decrypt: Callable[[bytes], bytes]


def parse_encryption_callbacks(value: Any) -> EncryptionCallbacks:
    """``[encrypt, decrypt]`` (OpenVINO's Python form), an object with callable ``encrypt`` and
    ``decrypt`` attributes, or an :class:`EncryptionCallbacks`."""
    if isinstance(value, EncryptionCallbacks):
        return value
    if isinstance(value, (list, tuple)) and len(value) == 2:
        pair = tuple(value)
    else:
        pair = (getattr(value, "encrypt", None), getattr(value, "decrypt", None))
    if not all(callable(f) for f in pair):
        raise TypeError(value)
    return EncryptionCallbacks(pair[0], pair[1])


def parse_type(value: Any) -> Type:
    try:
        return as_type(value)
    except ValidationError as e:
        raise ValueError(value) from e


def enum_parser(enum: type[StrEnum]) -> Callable[[Any], StrEnum]:
    """A parser accepting a member, its value or name, or an object whose ``.name`` is a member
    name (e.g. ``openvino.properties.hint.PerformanceMode.LATENCY``)."""

    def parse(value: Any) -> StrEnum:
        if isinstance(value, enum):
            return value
        text = value if isinstance(value, str) else getattr(value, "name", None)
        if isinstance(text, str):
            for member in enum:
                if text in (member.value, member.name):
                    return member
        raise ValueError(value)

    return parse


def _enum_values(enum: type[StrEnum]) -> str:
    return ", ".join(m.value for m in enum)


# -- the catalogue ----------------------------------------------------------------------------
@dataclass(frozen=True)
class PropertySpec:
    """One property: its name, parser, default mutability and what values are allowed.

    :param name: the OpenVINO property name.
    :param parse: turns a native or string value into the canonical value; raises
        ValueError/TypeError for a bad value.
    :param allowed: the allowed values, in words, for error messages.
    :param mutability: RO for device facts, RW for settings.
    :param doc: one line on what it means.
    """

    name: str
    parse: Callable[[Any], Any]
    allowed: str
    mutability: Mutability
    doc: str = ""

    def coerce(self, value: Any, allowed: str | None = None) -> Any:
        """The canonical value of ``value``, or a PropertyError naming the property, the bad
        value and the supported values."""
        try:
            return self.parse(value)
        except (ValueError, TypeError, OverflowError):
            raise PropertyError(
                f"Wrong value {value!r} for property {self.name!r}. "
                f"Supported values: {allowed or self.allowed}.") from None


def _spec(name: str, parse: Callable[[Any], Any], allowed: str, mut: Mutability, doc: str) -> PropertySpec:
    return PropertySpec(name, parse, allowed, mut, doc)


RO, RW = Mutability.RO, Mutability.RW
_TYPES = ", ".join(t.name for t in ALL_TYPES)
_ANY_STR = "any string"
_ENTRIES: list[PropertySpec] = [
    _spec(SUPPORTED_PROPERTIES, dict, "read-only", RO, "property name -> 'RO' or 'RW'"),
    _spec(SUPPORTED_METRICS, parse_str_list, "read-only", RO, "old API: names of read-only properties"),
    _spec(SUPPORTED_CONFIG_KEYS, parse_str_list, "read-only", RO, "old API: names of writable properties"),
    _spec(AVAILABLE_DEVICES, parse_str_list, "read-only", RO, "device ids of this device type"),
    _spec(FULL_DEVICE_NAME, parse_str, "read-only", RO, "human readable device name"),
    _spec(DEVICE_ARCHITECTURE, parse_str, "read-only", RO, "architecture string (compatibility of blobs)"),
    _spec(DEVICE_TYPE, enum_parser(DeviceType), "read-only", RO, "INTEGRATED or DISCRETE"),
    _spec(DEVICE_UUID, parse_str, "read-only", RO, "device UUID"),
    _spec(DEVICE_LUID, parse_str, "read-only", RO, "device LUID"),
    _spec(DEVICE_GOPS, dict, "read-only", RO, "element type -> giga operations per second"),
    _spec(DEVICE_THERMAL, float, "read-only", RO, "device temperature (Celsius)"),
    _spec(OPTIMIZATION_CAPABILITIES, parse_str_list, "read-only", RO, "list of Capability values"),
    _spec(RANGE_FOR_ASYNC_INFER_REQUESTS, tuple, "read-only", RO, "(min, max, step) of requests"),
    _spec(RANGE_FOR_STREAMS, tuple, "read-only", RO, "(min, max) of streams"),
    _spec(EXECUTION_DEVICES, parse_str_list, "read-only", RO, "devices that execute a compiled model"),
    _spec(IMPORT_EXPORT_SUPPORT, parse_bool, "read-only", RO, "the device can export and import blobs"),
    _spec(CACHING_PROPERTIES, parse_str_list, "read-only", RO, "properties that enter the cache key"),
    _spec(MODEL_NAME, parse_str, "read-only", RO, "name of the compiled model"),
    _spec(NETWORK_NAME, parse_str, "read-only", RO, "old name of MODEL_NAME"),
    _spec(LOADED_FROM_CACHE, parse_bool, "read-only", RO, "the compiled model was imported from the cache"),
    _spec(OPTIMAL_NUMBER_OF_INFER_REQUESTS, parse_int, "read-only", RO, "requests that keep the device busy"),
    _spec(OPTIMAL_BATCH_SIZE, parse_int, "read-only", RO, "best batch for a model"),
    _spec(MAX_BATCH_SIZE, parse_int, "read-only", RO, "largest batch that fits"),
    _spec(DEVICE_ID, parse_str, "one of the device's AVAILABLE_DEVICES ids", RW, "which device of this type"),
    _spec(PERF_COUNT, parse_bool, "True, False (or 'YES'/'NO', 'true'/'false')", RW, "collect profiling info"),
    _spec(PERFORMANCE_HINT, enum_parser(PerformanceMode), _enum_values(PerformanceMode), RW, "latency/throughput"),
    _spec(PERFORMANCE_HINT_NUM_REQUESTS, parse_int, "integers >= 0", RW, "requests the app will run"),
    _spec(INFERENCE_PRECISION_HINT, parse_type, _TYPES, RW, "element type used for computation"),
    _spec(EXECUTION_MODE_HINT, enum_parser(ExecutionMode), _enum_values(ExecutionMode), RW, "speed vs accuracy"),
    _spec(MODEL_PRIORITY, enum_parser(Priority), _enum_values(Priority), RW, "priority among compiled models"),
    _spec(NUM_STREAMS, parse_num_streams, f"integers 0..{MAX_NUM_STREAMS}, 'AUTO' (-1) or 'NUMA' (-2)", RW,
          "execution streams"),
    _spec(INFERENCE_NUM_THREADS, parse_int, "integers >= 0", RW, "threads for inference (0 = auto)"),
    _spec(COMPILATION_NUM_THREADS, parse_int, "integers >= 0", RW, "threads for compilation (0 = auto)"),
    _spec(ENABLE_HYPER_THREADING, parse_bool, "True, False", RW, "use hyper-threads"),
    _spec(ENABLE_CPU_PINNING, parse_bool, "True, False", RW, "pin threads to cores"),
    _spec(SCHEDULING_CORE_TYPE, enum_parser(SchedulingCoreType), _enum_values(SchedulingCoreType), RW, "core type"),
    _spec(ENABLE_MMAP, parse_bool, "True, False", RW, "map weights files instead of reading them"),
    _spec(LOG_LEVEL, enum_parser(LogLevel), _enum_values(LogLevel), RW, "logging verbosity"),
    _spec(CACHE_DIR, parse_str, "a directory path ('' turns caching off)", RW, "model cache folder"),
    _spec(CACHE_MODE, enum_parser(CacheMode), _enum_values(CacheMode), RW, "what the cache blob keeps"),
    _spec(WEIGHTS_PATH, parse_str, _ANY_STR, RW, "weights file for weightless blobs"),
    _spec(ENABLE_WEIGHTLESS, parse_bool, "True, False", RW, "export without weights (beats CACHE_MODE)"),
    _spec(COMPILED_BLOB, parse_blob, "bytes, a uint8 array or a u8 Tensor of an exported model", RW,
          "compile_model imports this blob instead of compiling"),
    _spec(EXCLUSIVE_ASYNC_REQUESTS, parse_bool, "True, False", RW, "one executor for all requests"),
    _spec(CACHE_ENCRYPTION_CALLBACKS, parse_encryption_callbacks,
          "[encrypt, decrypt]: two callables, each bytes -> bytes", Mutability.WO,
          "encrypt exported and cached blobs, decrypt them on import"),
    _spec(DISABLE_TRANSFORMATIONS, parse_bool, "True, False", RW, "skip device transformations"),
]
CATALOGUE: Final[dict[str, PropertySpec]] = {s.name: s for s in _ENTRIES}
_CATALOGUE_LOCK = threading.Lock()


def register_property(spec: PropertySpec) -> PropertySpec:
    """Add a device-specific property to the catalogue (same spec twice is fine, a different
    spec under a taken name is an error)."""
    with _CATALOGUE_LOCK:
        old = CATALOGUE.get(spec.name)
        if old is not None and old != spec:
            raise PropertyError(f"property {spec.name!r} is already in the catalogue with another definition.")
        CATALOGUE[spec.name] = spec
    return spec


def get_spec(name: str) -> PropertySpec:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise PropertyError(
            f"property {name!r} is not in the catalogue; known properties: {', '.join(sorted(CATALOGUE))}."
        ) from None


def parse_value(name: str, value: Any) -> Any:
    """The canonical value of property ``name`` (catalogue parsing only, no device limits)."""
    return get_spec(name).coerce(value)


def to_string(value: Any) -> str:
    """The string form used for comparisons and cache keys (``True`` -> "YES", enums -> value)."""
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, Type):
        return value.name
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{to_string(k)}:{to_string(v)}" for k, v in sorted(value.items(), key=str)) + "}"
    if isinstance(value, (list, tuple)):
        return ",".join(to_string(v) for v in value)
    return str(value)


# -- the property store, re-exported --------------------------------------------------------------
# Declared, PropertyStore and resolve_num_streams live in ovconform/contract/property_store.py, which
# builds on this catalogue; they stay importable from here. The import waits for the first use (PEP 562),
# so the catalogue never depends on the store and either module can be imported first.
_STORE_NAMES: Final = ("Declared", "PropertyStore", "resolve_num_streams")


def __getattr__(name: str) -> Any:
    if name in _STORE_NAMES:
        from ovconform.contract import property_store

        value = getattr(property_store, name)
        globals()[name] = value  # later lookups find it without this hook
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_STORE_NAMES})
