"""benchmark_app's shape and configuration flags, with its spellings and meanings.

* ``-shape``: the model's input shapes, ``"input1[1,3,224,224],input2[1,4]"`` or ``"[1,3,224,224]"``
  (one bracket without a name applies to every input). Dimensions may be dynamic (``?``, ``-1``)
  or bounded (``1..10``). The model is reshaped (its Parameters get the new shapes and types and
  shapes are inferred again), as benchmark_app's ``model.reshape``.
* ``-layout``: ``"input1[NCHW],input2[NC]"`` or ``"[NCHW]"``: which dimension is which; without it
  a Parameter's own layout, else benchmark_app's guess (a rank-4 input whose dimension 1 is at
  most 4 and dimension 3 above 4 is NCHW, the other way round NHWC; rank 3: CHW / HWC).
* ``-b N``: the batch size: the ``N`` dimension of each input's layout is set to ``N``. An input
  without a layout whose first dimension is dynamic, 0 or 1 takes its first dimension as the batch
  (benchmark_app's rule). No input with a batch dimension is an error. With ``-data_shape`` the
  batch is ignored (benchmark_app: give the batch in the data shape).
* ``-data_shape``: the tensors' shapes for dynamic inputs, ``"input1[1,3,224,224][1,3,448,448],input2[1,4][1,8]"``
  or ``"[1,3,224,224][1,3,448,448]"``. Several shapes make groups used in turn (group ``g`` gives
  each input its ``g % count``-th shape); unnamed shapes go to the inputs in order, round robin.
* ``-infer_precision``: ``bf16`` for every device, or ``CPU:bf16,GPU:f32`` per device.
* ``-load_config`` / ``-dump_config``: ``{"DEVICE": {"KEY": "value", ...}, ...}``, values as
  strings, booleans as ``"YES"``/``"NO"`` (benchmark_app's ``load_config`` / ``dump_config``).

Every bad value raises :class:`~ovconform.errors.ValidationError` naming the flag, the value and
what is allowed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ovconform import properties as P
from ovconform.errors import OVConformError, ValidationError
from ovconform.ir import Dimension, Layout, Model, PartialShape

__all__ = ["apply_shapes", "dump_config", "guess_layout", "infer_precision_per_device", "load_config",
           "parse_data_shapes", "parse_per_input"]

#: benchmark_app's limit for the channel dimension when it guesses a layout
IMAGE_COLORS_DIM_MAX = 4
_PER_INPUT = re.compile(r"(.*?)\[(.*?)\],?")


def _input_names(model: Model) -> list[tuple[str, set[str]]]:
    """(friendly name, every name the input answers to) per Parameter."""
    return [(p.friendly_name, {p.friendly_name, *p.output(0).get_names()}) for p in model.get_parameters()]


def _which(model: Model, name: str, flag: str) -> int:
    for index, (_friendly, names) in enumerate(_input_names(model)):
        if name in names:
            return index
    raise ValidationError(f"{flag} names input {name!r}; the model {model.friendly_name!r} has inputs "
                          f"{[f for f, _ in _input_names(model)]}.")


def parse_per_input(text: str, model: Model, flag: str) -> dict[int, str]:
    """``"a[v1],b[v2]"`` or ``"[v]"`` (for every input) as {parameter index: value text}."""
    if not text.strip():
        return {}
    matches = _PER_INPUT.findall(text.replace(" ", ""))
    rest = _PER_INPUT.sub("", text.replace(" ", ""))
    if not matches or rest:
        raise ValidationError(f"{flag} {text!r}: expected name[value],other[value] or [value] for every input.")
    out: dict[int, str] = {}
    for name, value in matches:
        if not name:
            return dict.fromkeys(range(len(model.get_parameters())), value)
        out[_which(model, name, flag)] = value
    return out


def _shape(text: str, flag: str, where: str) -> PartialShape:
    try:
        return PartialShape(f"[{text}]")
    except ValidationError as e:
        raise ValidationError(f"{flag}: {where} shape [{text}] is not a shape ({e}); use integers, '?' or -1 "
                              "for a dynamic dimension, 'min..max' for a bounded one.") from None


def guess_layout(shape: PartialShape) -> Layout:
    """benchmark_app's layout guess for an input without one (empty when it cannot tell)."""
    if not shape.has_rank():
        return Layout()
    dims = list(shape)

    def most(d: Any) -> int:
        return int(d.get_max_length()) if d.get_max_length() >= 0 else 1 << 62  # -1: unbounded

    if len(dims) == 4:
        if most(dims[1]) <= IMAGE_COLORS_DIM_MAX < most(dims[3]):
            return Layout("NCHW")
        if most(dims[3]) <= IMAGE_COLORS_DIM_MAX < most(dims[1]):
            return Layout("NHWC")
    elif len(dims) == 3:
        if most(dims[0]) <= IMAGE_COLORS_DIM_MAX < most(dims[2]):
            return Layout("CHW")
        if most(dims[2]) <= IMAGE_COLORS_DIM_MAX < most(dims[0]):
            return Layout("HWC")
    return Layout()


def apply_shapes(model: Model, *, shape: str | None = None, layout: str | None = None, batch: int | None = None,
                 data_shape_given: bool = False) -> tuple[Model, list[str]]:
    """``model`` reshaped by ``-shape``, ``-layout`` and ``-b`` (the same model when nothing
    changes), and the warnings benchmark_app would print.

    :raises ValidationError: a flag that cannot be parsed, names no input, finds no batch
        dimension, or a reshape the model's ops refuse (the op's message is kept).
    """
    params = model.get_parameters()
    shapes = [p.get_output_partial_shape(0) for p in params]
    warnings: list[str] = []
    changed = False
    for index, text in parse_per_input(shape or "", model, "-shape").items():
        shapes[index] = _shape(text, "-shape", f"input {params[index].friendly_name!r}:")
        changed = True
    layouts: dict[int, Layout] = {}
    for index, text in parse_per_input(layout or "", model, "-layout").items():
        try:
            layouts[index] = Layout(text)
        except ValidationError as e:
            raise ValidationError(f"-layout of input {params[index].friendly_name!r}: {e}") from None
    if batch is not None and data_shape_given:
        warnings.append("Batch size will be ignored. Provide batch dimension in data_shape parameter.")
    elif batch is not None:
        found = False
        for index, param in enumerate(params):
            lay = layouts.get(index) or param.get_layout()
            if lay.empty():
                lay = guess_layout(shapes[index])
            at = -1
            if lay.has_name("N"):
                at = lay.get_index_by_name("N")
            elif lay.empty() and shapes[index].has_rank() and len(list(shapes[index])) > 0:
                first = list(shapes[index])[0]
                if first.is_dynamic or first.get_length() in (0, 1):
                    warnings.append(f"Batch dimension is not specified for input {param.friendly_name!r}. "
                                    "The first dimension will be interpreted as batch size.")
                    at = 0
            if at < 0:
                continue
            found = True
            dims = list(shapes[index])
            if at >= len(dims):
                raise ValidationError(f"-b {batch}: the layout of input {param.friendly_name!r} puts N at index "
                                      f"{at}, but its shape {shapes[index]} has rank {len(dims)}.")
            if not (dims[at].is_static and dims[at].get_length() == batch):
                dims[at] = Dimension(batch)
                shapes[index] = PartialShape(dims)
                changed = True
        if not found:
            raise ValidationError(f"-b {batch}: no input of model {model.friendly_name!r} has a batch (N) dimension "
                                  "in its layout, so the batch cannot be set; give the layout with -layout, e.g. "
                                  "-layout [NCHW].")
    if not changed:
        return model, warnings
    return _reshape(model, shapes), warnings


def _reshape(model: Model, shapes: Sequence[PartialShape]) -> Model:
    """A copy of ``model`` whose Parameters have ``shapes`` (OpenVINO's ``Model.reshape``)."""
    out = model.clone()
    for param, shape in zip(out.get_parameters(), shapes, strict=True):
        param.attrs["shape"] = shape
    try:
        out.validate_nodes_and_infer_types()
    except ValidationError as e:
        new = {p.friendly_name: str(s) for p, s in zip(out.get_parameters(), shapes, strict=True)}
        raise ValidationError(f"model {model.friendly_name!r} cannot be reshaped to {new}: {e}") from None
    return out


def parse_data_shapes(text: str, model: Model) -> list[dict[str, list[int]]]:
    """``-data_shape`` as groups of {parameter friendly name: static dims} (see the module doc)."""
    if not text.strip():
        return []
    params = model.get_parameters()
    compact = text.replace(" ", "")
    per: dict[int, list[PartialShape]] = {}
    items = re.findall(r"([^\[\],]*)((?:\[[^\[\]]*\])+),?", compact)
    if not items or "".join(n + s for n, s in items) != compact.replace("],", "]"):
        raise ValidationError(f"-data_shape {text!r}: expected name[d1,d2,...][...],other[...] or [d1,d2,...][...].")
    for name, brackets in items:
        shapes = [_shape(s, "-data_shape", f"input {name!r}:" if name else "a") for s in
                  re.findall(r"\[([^\[\]]*)\]", brackets)]
        if name:
            per[_which(model, name, "-data_shape")] = shapes
            continue
        if len(items) != 1:
            raise ValidationError(f"-data_shape {text!r} mixes named and unnamed shapes; use one form.")
        if len(shapes) != 1 and len(shapes) % len(params) != 0:
            raise ValidationError(f"-data_shape {text!r}: {len(shapes)} unnamed shapes are not a multiple of the "
                                  f"model's {len(params)} inputs.")
        for i in range(max(len(shapes), len(params))):
            per.setdefault(i % len(params), []).append(shapes[i % len(shapes)])
    groups = max(len(v) for v in per.values())
    out: list[dict[str, list[int]]] = []
    for g in range(groups):
        group: dict[str, list[int]] = {}
        for index, shapes in per.items():
            s = shapes[g % len(shapes)]
            name = params[index].friendly_name
            if not s.is_static:
                raise ValidationError(f"-data_shape: the shape {s} of input {name!r} is dynamic; a data shape is "
                                      "always static.")
            port = params[index].get_output_partial_shape(0)
            if not port.compatible(s):
                raise ValidationError(f"-data_shape: the shape {s} of input {name!r} is not compatible with its "
                                      f"shape {port}.")
            group[name] = [d.get_length() for d in s]
        out.append(group)
    return out


def infer_precision_per_device(text: str, devices: Sequence[str]) -> dict[str, str]:
    """``-infer_precision``: ``"bf16"`` (every device) or ``"CPU:bf16,GPU:f32"`` as {device: type}."""
    out: dict[str, str] = {}
    for item in (t.strip() for t in text.split(",")):
        device, colon, value = item.rpartition(":")
        if not value:
            raise ValidationError(f"-infer_precision {text!r}: expected a type (bf16) or DEVICE:type,DEVICE:type.")
        try:
            P.parse_value(P.INFERENCE_PRECISION_HINT, value)
        except OVConformError:
            raise ValidationError(f"-infer_precision {text!r}: {value!r} is not an element type; allowed: "
                                  f"{P.get_spec(P.INFERENCE_PRECISION_HINT).allowed}.") from None
        if not colon:
            out.update(dict.fromkeys(devices, value))
            continue
        match = [d for d in devices if d.upper() == device.upper()]
        if not match:
            raise ValidationError(f"-infer_precision {text!r}: device {device!r} is not among the devices "
                                  f"benchmarked ({', '.join(devices)}).")
        out[match[0]] = value
    return out


def load_config(path: str | Path) -> dict[str, dict[str, Any]]:
    """benchmark_app's ``-load_config`` file as {device: {property: value}} ("YES"/"NO" as booleans)."""
    file = Path(path)
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValidationError(f"-load_config {str(path)!r}: no such file.") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ValidationError(f"-load_config {str(path)!r}: cannot read it ({e}).") from None
    except json.JSONDecodeError as e:
        raise ValidationError(f"-load_config {str(path)!r}: not JSON ({e}).") from None
    if not isinstance(doc, dict):
        raise ValidationError(f"-load_config {str(path)!r}: expected an object {{\"DEVICE\": {{\"KEY\": \"value\"}}}}, "
                              f"got {type(doc).__name__}.")
    out: dict[str, dict[str, Any]] = {}
    for device, props in doc.items():
        if not isinstance(props, dict):
            raise ValidationError(f"-load_config {str(path)!r}: the entry of device {device!r} must be an object "
                                  f"of properties, got {type(props).__name__}.")
        out[device] = {}
        for key, value in props.items():
            if not isinstance(value, (str, int, float, bool)):
                raise ValidationError(f"-load_config {str(path)!r}: {device}.{key} must be a string (or a number "
                                      f"or boolean), got {type(value).__name__}.")
            out[device][key] = (value == "YES") if value in ("YES", "NO") else value
    return out


def config_for(config: Mapping[str, Mapping[str, Any]], device: str, *aliases: str) -> dict[str, Any]:
    """The loaded entry of ``device`` (its name, or an alias such as the --plugin value; case
    does not matter), or an empty one."""
    wanted = {n.upper() for n in (device, *aliases)}
    for name, props in config.items():
        if name.upper() in wanted:
            return dict(props)
    return {}


def dump_config(path: str | Path, config: Mapping[str, Mapping[str, Any]]) -> None:
    """Write {device: {property: value}} in benchmark_app's ``-dump_config`` form: every value a
    string, booleans "YES"/"NO", enums by their value."""
    doc = {device: {key: P.to_string(value) for key, value in props.items()} for device, props in config.items()}
    file = Path(path)
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(doc, indent=4) + "\n", encoding="utf-8")
    except OSError as e:
        raise ValidationError(f"-dump_config {str(path)!r}: cannot write it ({e}).") from None
