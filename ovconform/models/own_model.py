"""Bring your own model: ``pytest --plugin=X --ovconform-model path.xml`` runs a model file through
the model suite (device vs REFERENCE, the first diverging op, a reproducer) beside the zoo.

* IR v11 (``.xml`` with its ``.bin``) is read by :func:`ovconform.read_model`; the formats of
  OpenVINO's frontends (``.onnx``, ``.pb``, ``.tflite``, ``.pdmodel``) are read by OpenVINO (the
  ``openvino`` extra), written as IR v11 and read back, so the model holds the ops OpenVINO's
  frontend made of it.
* Inputs come from ``--ovconform-model-inputs`` (given once per model, in order): a ``.npy`` for a
  model with one Parameter, or a ``.npz`` keyed by Parameter name (friendly name or a tensor
  name), or by ``s<step>__<name>`` for several inference steps on one request (a stateful model;
  the reproducers' ``inputs.npz`` has this form). Without it, inputs are drawn from the declared
  shapes and types (seeded): a dynamic dimension takes :data:`DYNAMIC_SIZE` within its bounds;
  floats N(0, 1); integers that index a Gather below that axis' size, others in [0, 10); booleans
  half true. A stateful model runs :data:`STATEFUL_STEPS` steps.

Every mistake (no such file, a format nothing reads, a model with an op REFERENCE lacks, inputs
that do not fit) is an :class:`~ovconform.errors.OVConformError` naming the file and the value;
the pytest plugin makes it one usage-error line.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from ovconform.errors import NotFoundError, OVConformError, ReadModelError, ValidationError
from ovconform.ir import Model, Node, PartialShape, Type, holding_array

__all__ = ["DYNAMIC_SIZE", "FRONTEND_SUFFIXES", "STATEFUL_STEPS", "OwnModel", "draw_inputs", "load_inputs",
           "own_models", "own_models_from_config", "read_own_model"]

Steps = list[dict[str, np.ndarray]]

#: The suffixes OpenVINO's frontends read (through the ``openvino`` package).
FRONTEND_SUFFIXES = (".onnx", ".pb", ".tflite", ".pdmodel")
#: The size a dynamic dimension takes when inputs are drawn (clamped to the dimension's bounds).
DYNAMIC_SIZE = 4
#: Steps drawn for a stateful model (ReadValue/Assign): its state is read after being written.
STATEFUL_STEPS = 3
_STEP_KEY = re.compile(r"^s(\d+)__(.+)$")


@dataclass
class OwnModel:
    """A model file given with ``--ovconform-model`` (and its inputs file, if any)."""

    path: Path
    inputs: Path | None = None
    _model: Model | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def description(self) -> str:
        return f"your model {self.path}" + (f" with inputs {self.inputs}" if self.inputs else "")

    def build(self) -> Model:
        """The model (read once; the suite never changes it: devices compile copies)."""
        if self._model is None:
            self._model = read_own_model(self.path)
        return self._model

    def make_steps(self, model: Model) -> Steps:
        return load_inputs(model, self.inputs) if self.inputs else draw_inputs(model)


def read_own_model(path: str | Path) -> Model:
    """The model in ``path``: IR v11 by ovconform, the other formats through OpenVINO's frontends.

    :raises NotFoundError: no such file, or a suffix nothing here reads (the message lists them).
    :raises ReadModelError: the file does not read, or OpenVINO is needed and not installed.
    """
    path = Path(path)
    if not path.is_file():
        raise NotFoundError(f"--ovconform-model {str(path)!r}: no such file.")
    suffix = path.suffix.lower()
    if suffix == ".xml":
        from ovconform.ir._read import read_model

        try:
            return read_model(str(path))
        except ReadModelError as e:
            raise ReadModelError(f"--ovconform-model {str(path)!r}: {e}") from None
    if suffix not in FRONTEND_SUFFIXES:
        raise NotFoundError(f"--ovconform-model {str(path)!r}: the suffix {suffix or '(none)'!r} is not a model "
                            f"format read here; allowed: .xml (IR v11), {', '.join(FRONTEND_SUFFIXES)} (through "
                            "OpenVINO's frontends).")
    return _through_openvino(path)


def _through_openvino(path: Path) -> Model:
    try:
        import openvino as ov
    except ImportError:
        raise ReadModelError(f"--ovconform-model {str(path)!r}: reading {path.suffix} needs OpenVINO's frontends; "
                             "install the openvino extra (pip install 'ovconform[openvino]') or give an IR v11 "
                             ".xml.") from None
    from ovconform.ir._read import read_model

    try:
        ov_model = ov.Core().read_model(str(path))
    except Exception as e:  # noqa: BLE001 - OpenVINO raises RuntimeError with its own chain
        from ovconform.adapters.openvino._convert import ov_message

        raise ReadModelError(f"--ovconform-model {str(path)!r}: OpenVINO cannot read it: {ov_message(e)}") from None
    with tempfile.TemporaryDirectory(prefix="ovconform-own-model-") as folder:
        xml = Path(folder) / "model.xml"
        ov.save_model(ov_model, str(xml), compress_to_fp16=False)
        try:
            return read_model(str(xml))
        except ReadModelError as e:
            raise ReadModelError(f"--ovconform-model {str(path)!r}: as OpenVINO's frontend reads it: {e}") from None


# -- inputs -------------------------------------------------------------------------------------

def _concrete(shape: PartialShape, what: str) -> tuple[int, ...]:
    if not shape.has_rank():
        raise ValidationError(f"{what} has a dynamic rank; give its inputs with --ovconform-model-inputs.")
    sizes = []
    for d in shape:
        if d.is_static:
            sizes.append(d.get_length())
        else:
            hi = d.get_max_length() if d.is_bounded() else DYNAMIC_SIZE
            sizes.append(max(d.get_min_length(), min(hi, DYNAMIC_SIZE)))
    return tuple(sizes)


def _index_bound(param: Node) -> int | None:
    """The smallest static size of the axis this Parameter indexes as a Gather's indices (None if it
    indexes nothing static)."""
    bounds = []
    for target in param.output(0).get_target_inputs():
        node = target.get_node()
        if node.type_name != "Gather" or target.get_index() != 1:
            continue
        axis_node = node.input_value(2).node
        data = node.get_input_partial_shape(0)
        if axis_node.type_name != "Constant" or not data.has_rank():
            continue
        axis = int(np.asarray(axis_node.data).reshape(-1)[0])
        dim = data[axis]
        if dim.is_static:
            bounds.append(dim.get_length())
    return min(bounds) if bounds else None


def draw_inputs(model: Model, seed: int = 0) -> Steps:
    """Seeded inputs from the Parameters' declared shapes and types (module doc); one step, or
    :data:`STATEFUL_STEPS` for a model with state.

    :raises ValidationError: a Parameter with a dynamic rank, or of a type nothing is drawn for."""
    rng = np.random.default_rng(seed)
    shapes = {p.friendly_name: _concrete(p.get_output_partial_shape(0), f"Parameter {p.friendly_name!r}")
              for p in model.get_parameters()}
    steps = []
    for _ in range(STATEFUL_STEPS if model.get_sinks() else 1):
        feed: dict[str, np.ndarray] = {}
        for p in model.get_parameters():
            name, et = p.friendly_name, p.get_output_element_type(0)
            shape = shapes[name]
            if et.is_real():  # held as the Parameter's type holds it (bf16: its bits)
                feed[name] = holding_array(rng.standard_normal(shape).astype(np.float32), et, f"Parameter {name!r}")
            elif et == Type.boolean:
                feed[name] = rng.random(shape) < 0.5
            elif et.is_integral_number() and not et.is_packed():
                bound = _index_bound(p) or 10
                feed[name] = rng.integers(0, bound, shape).astype(et.to_dtype())
            else:
                raise ValidationError(f"Parameter {name!r} is {et}: no inputs are drawn for it; give them with "
                                      "--ovconform-model-inputs.")
        steps.append(feed)
    return steps


def _param_for(model: Model, key: str, inputs: Path) -> Node:
    for p in model.get_parameters():
        if key == p.friendly_name or key in p.output(0).get_names():
            return p
    names = ", ".join(p.friendly_name for p in model.get_parameters())
    raise ValidationError(f"--ovconform-model-inputs {str(inputs)!r}: {key!r} is no Parameter of the model; "
                          f"allowed: {names}.")


def _check_value(param: Node, value: np.ndarray, inputs: Path, key: str) -> np.ndarray:
    et, shape = param.get_output_element_type(0), param.get_output_partial_shape(0)
    what = f"--ovconform-model-inputs {str(inputs)!r}: {key!r}"
    if not shape.compatible(value.shape):
        raise ValidationError(f"{what} has shape {list(value.shape)}; Parameter {param.friendly_name!r} takes {shape}.")
    kind = value.dtype.kind
    fits = (kind == "f" if et.is_real() else kind == "b" if et == Type.boolean else kind in "iu")
    if not fits:
        raise ValidationError(f"{what} holds {value.dtype}; Parameter {param.friendly_name!r} is {et}.")
    if kind in "iu" and not et.is_packed() and value.size:
        info = np.iinfo(et.to_dtype())
        if value.min() < info.min or value.max() > info.max:
            raise ValidationError(f"{what} holds values in [{value.min()}, {value.max()}]; Parameter "
                                  f"{param.friendly_name!r} is {et}: allowed [{info.min}, {info.max}].")
    return holding_array(value, et, what)  # as the Parameter's type holds it (f16, bf16 bits, i32, ...)


def load_inputs(model: Model, inputs: str | Path) -> Steps:
    """The steps in a ``.npy``/``.npz`` file (module doc), checked against the model's Parameters.

    :raises NotFoundError: no such file, or not a ``.npy``/``.npz``.
    :raises ValidationError: a key that names no Parameter, a Parameter without a value, a shape
        or dtype that does not fit, or a file numpy cannot read (never unpickled)."""
    inputs = Path(inputs)
    if not inputs.is_file():
        raise NotFoundError(f"--ovconform-model-inputs {str(inputs)!r}: no such file.")
    suffix = inputs.suffix.lower()
    if suffix not in (".npy", ".npz"):
        raise NotFoundError(f"--ovconform-model-inputs {str(inputs)!r}: {suffix or '(no suffix)'!r} is not an input "
                            "file; allowed: .npy (a model with one Parameter), .npz (keyed by Parameter name).")
    try:
        loaded = np.load(inputs, allow_pickle=False)
        arrays = {"": loaded} if suffix == ".npy" else {k: loaded[k] for k in loaded.files}
    except (ValueError, OSError, EOFError) as e:
        raise ValidationError(f"--ovconform-model-inputs {str(inputs)!r}: numpy cannot read it: {e}") from None
    params = model.get_parameters()
    if suffix == ".npy":
        if len(params) != 1:
            raise ValidationError(f"--ovconform-model-inputs {str(inputs)!r}: a .npy feeds a model with one Parameter; "
                                  f"this one has {len(params)} ({', '.join(p.friendly_name for p in params)}): "
                                  "give a .npz keyed by Parameter name.")
        arrays = {params[0].friendly_name: arrays[""]}
    per_step: dict[int, dict[str, np.ndarray]] = {}
    for key, value in arrays.items():
        m = _STEP_KEY.match(key)
        step, name = (int(m.group(1)), m.group(2)) if m else (0, key)
        param = _param_for(model, name, inputs)
        per_step.setdefault(step, {})[param.friendly_name] = _check_value(param, value, inputs, key)
    if sorted(per_step) != list(range(len(per_step))):
        raise ValidationError(f"--ovconform-model-inputs {str(inputs)!r}: steps {sorted(per_step)} are not 0, 1, ... "
                              "without a gap.")
    steps = [per_step[s] for s in range(len(per_step))]
    for s, feed in enumerate(steps):
        missing = [p.friendly_name for p in params if p.friendly_name not in feed]
        if missing:
            raise ValidationError(f"--ovconform-model-inputs {str(inputs)!r}: step {s} has no value for Parameter(s) "
                                  f"{', '.join(missing)}.")
    return steps


def own_models(paths: Sequence[str], inputs: Sequence[str]) -> list[OwnModel]:
    """The ``--ovconform-model`` files (relative paths from the current folder, as given), each read
    and its inputs made once here, so that a mistake is reported before any test runs.

    :raises OVConformError: the first mistake (see :func:`read_own_model`, :func:`load_inputs`,
        :func:`draw_inputs`), or inputs given neither once per model nor not at all."""
    if inputs and len(inputs) != len(paths):
        raise ValidationError(f"--ovconform-model-inputs is given {len(inputs)} time(s) for {len(paths)} "
                              "--ovconform-model(s); allowed: once per model, in the same order, or not at all.")
    out = []
    for i, path in enumerate(paths):
        own = OwnModel(Path(path), Path(inputs[i]) if inputs else None)
        own.make_steps(own.build())
        out.append(own)
    return out



_KEY = pytest.StashKey[tuple[OwnModel, ...]]()


def own_models_from_config(config: pytest.Config) -> list[OwnModel]:
    """The run's ``--ovconform-model`` files (made once per pytest config and kept in its stash).

    :raises pytest.UsageError: one line naming the mistake."""
    if _KEY not in config.stash:
        paths = config.getoption("ovconform_model", None) or []
        inputs = config.getoption("ovconform_model_inputs", None) or []
        if inputs and not paths:
            raise pytest.UsageError("--ovconform-model-inputs is given without --ovconform-model.")
        try:
            config.stash[_KEY] = tuple(own_models(paths, inputs))
        except OVConformError as e:
            raise pytest.UsageError(str(e)) from None
    made: tuple[OwnModel, ...] = config.stash[_KEY]
    return list(made)
