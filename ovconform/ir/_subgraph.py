"""Sub-graph bodies of the control-flow ops (If-8, Loop-5, TensorIterator-1): the port maps.

Names follow OpenVINO's ``ov.op.util`` classes. A control-flow node keeps, in its attributes
(kind ``"subgraph"``, never written into ``<data>``):

- ``bodies``: its body Models (If: then, else; Loop and TensorIterator: one body);
- ``input_descriptions``: per body, how the node's inputs feed the body's Parameters
  (:class:`InvariantInputDescription`, :class:`SliceInputDescription`, :class:`MergedInputDescription`,
  the last with a back edge from a body Result to the Parameter for the next iteration);
- ``output_descriptions``: per body, how the body's Results give the node's outputs
  (:class:`BodyOutputDescription`: the value of the last iteration; :class:`ConcatOutputDescription`:
  the values of every iteration concatenated along ``axis``);
- Loop only, ``special_body_ports``: :class:`SpecialBodyPorts` (the body Parameter that receives
  the current iteration number, the body Result that says whether to run another iteration).

``input_index`` is the node's input port, ``output_index`` its output port, ``body_parameter_index``
an index into ``body.get_parameters()`` and ``body_value_index`` an index into ``body.get_results()``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ovconform.errors import ValidationError

if TYPE_CHECKING:
    from ovconform.ir._graph import Model, Node


@dataclass(frozen=True)
class InvariantInputDescription:
    """Input ``input_index`` feeds body Parameter ``body_parameter_index`` unchanged on every iteration."""

    input_index: int
    body_parameter_index: int


@dataclass(frozen=True)
class SliceInputDescription:
    """Iteration ``i`` of the body sees the part of input ``input_index`` along ``axis`` that starts at
    ``start + i * stride`` (``part_size`` wide; a negative stride walks from the end, ``start``/``end``
    count from the end when negative, ``end`` is inclusive)."""

    input_index: int
    body_parameter_index: int
    start: int
    stride: int
    part_size: int
    end: int
    axis: int


@dataclass(frozen=True)
class MergedInputDescription:
    """Input ``input_index`` is the first value of body Parameter ``body_parameter_index``; each later
    iteration gets what body Result ``body_value_index`` gave on the one before (a back edge)."""

    input_index: int
    body_parameter_index: int
    body_value_index: int


@dataclass(frozen=True)
class BodyOutputDescription:
    """Output ``output_index`` is body Result ``body_value_index`` of the last iteration (``iteration``
    -1, the only value OpenVINO writes)."""

    body_value_index: int
    output_index: int
    iteration: int = -1


@dataclass(frozen=True)
class ConcatOutputDescription:
    """Output ``output_index`` is body Result ``body_value_index`` of every iteration concatenated along
    ``axis`` (in reverse iteration order when ``stride`` is negative)."""

    body_value_index: int
    output_index: int
    start: int
    stride: int
    part_size: int
    end: int
    axis: int


@dataclass(frozen=True)
class SpecialBodyPorts:
    """Loop-5: body Parameter ``current_iteration_input_idx`` receives the iteration number (-1: none);
    body Result ``body_condition_output_idx`` says whether another iteration runs."""

    current_iteration_input_idx: int = -1
    body_condition_output_idx: int = -1


InputDescription = InvariantInputDescription | SliceInputDescription | MergedInputDescription
OutputDescription = BodyOutputDescription | ConcatOutputDescription
INPUT_DESCRIPTIONS = (InvariantInputDescription, SliceInputDescription, MergedInputDescription)
OUTPUT_DESCRIPTIONS = (BodyOutputDescription, ConcatOutputDescription)

#: The attributes a control-flow node keeps its bodies and port maps in.
SUBGRAPH_ATTRS = ("bodies", "input_descriptions", "output_descriptions", "special_body_ports")


def has_bodies(node: Node) -> bool:
    """True for a node that holds sub-graph bodies (If, Loop, TensorIterator)."""
    return "bodies" in node.attrs


def bodies_of(node: Node) -> list[Model]:
    """The node's body Models (empty for an ordinary node)."""
    return list(node.attrs.get("bodies", ()))


def all_nodes(model: Model) -> list[Node]:
    """Every node of ``model`` and, recursively, of the bodies of its control-flow nodes."""
    out: list[Node] = []
    for node in model.get_ordered_ops():
        out.append(node)
        for body in bodies_of(node):
            out.extend(all_nodes(body))
    return out


def constant_subgraph_nodes(nodes: Sequence[Node]) -> list[Node]:
    """The nodes of ``nodes`` (a topological order) other than Constants whose value depends on
    Constants only: weight decompression (Convert, Subtract, Multiply of u4/i4/u8 weights) and the
    like. Their shapes are static and their values the same at every inference."""
    constant: set[int] = set()
    for n in nodes:
        if n.type_name == "Constant" or (n.type_name not in ("Parameter", "ReadValue", "Assign", "Result")
                                         and n.get_input_size()
                                         and all(id(s.node) in constant for s in n.input_values())):
            constant.add(id(n))
    return [n for n in nodes if id(n) in constant and n.type_name != "Constant"]


def check_port_maps(node: Node) -> None:
    """Check the shape of a control-flow node's sub-graph attributes: the kinds, the counts and
    every index in range. Raises ValidationError saying which description is wrong."""
    from ovconform.ir._graph import Model

    bodies = node.attrs.get("bodies")
    ins = node.attrs.get("input_descriptions")
    outs = node.attrs.get("output_descriptions")
    if not isinstance(bodies, list) or not all(isinstance(b, Model) for b in bodies):
        raise ValidationError(f"attribute 'bodies' must be a list of Models, not {bodies!r}.")
    for label, value, kinds in (("input_descriptions", ins, INPUT_DESCRIPTIONS),
                                ("output_descriptions", outs, OUTPUT_DESCRIPTIONS)):
        if not isinstance(value, list) or len(value) != len(bodies):
            raise ValidationError(f"attribute {label!r} must be a list with one list per body "
                                  f"({len(bodies)}), not {value!r}.")
        for b, descs in enumerate(value):
            if not isinstance(descs, list):
                raise ValidationError(f"{label}[{b}] must be a list, not {type(descs).__name__}.")
            for d in descs:
                if not isinstance(d, kinds):
                    allowed = ", ".join(k.__name__ for k in kinds)
                    raise ValidationError(f"{label}[{b}] holds {d!r}; allowed: {allowed}.")
    assert isinstance(ins, list) and isinstance(outs, list)
    n_in = node.get_input_size()
    for b, body in enumerate(bodies):
        n_params, n_results = len(body.get_parameters()), len(body.get_results())
        fed: dict[int, Any] = {}
        for d in ins[b]:
            _index(d, "input_index", d.input_index, n_in, "the node has", "input(s)")
            _index(d, "body_parameter_index", d.body_parameter_index, n_params, f"body {b} has", "Parameter(s)")
            if d.body_parameter_index in fed:
                raise ValidationError(f"body {b} Parameter {d.body_parameter_index} is fed twice: by "
                                      f"{fed[d.body_parameter_index]!r} and {d!r}.")
            fed[d.body_parameter_index] = d
            if isinstance(d, MergedInputDescription):
                _index(d, "body_value_index", d.body_value_index, n_results, f"body {b} has", "Result(s)")
            if isinstance(d, SliceInputDescription) and (d.part_size <= 0 or d.stride == 0):
                raise ValidationError(f"{d!r}: part_size must be > 0 and stride non-zero.")
        for d in outs[b]:
            _index(d, "body_value_index", d.body_value_index, n_results, f"body {b} has", "Result(s)")
            if d.output_index < 0:
                raise ValidationError(f"{d!r}: output_index {d.output_index} must be >= 0.")
            if isinstance(d, BodyOutputDescription) and d.iteration != -1:
                raise ValidationError(f"{d!r}: iteration {d.iteration} is not supported; only -1 (the last "
                                      "iteration, the only value OpenVINO writes) is.")
            if isinstance(d, ConcatOutputDescription) and (d.part_size <= 0 or d.stride == 0):
                raise ValidationError(f"{d!r}: part_size must be > 0 and stride non-zero.")


def _index(desc: Any, field: str, value: int, count: int, owner: str, what: str) -> None:
    if not 0 <= value < count:
        raise ValidationError(f"{desc!r}: {field} {value} is out of range; {owner} {count} {what}.")


def output_count(descs: Sequence[Sequence[OutputDescription]]) -> int:
    """The number of node outputs the output descriptions name (``max output_index + 1``); every
    index below it must be named."""
    indices = sorted({d.output_index for body in descs for d in body})
    if indices != list(range(len(indices))):
        raise ValidationError(f"the output descriptions name outputs {indices}; they must be 0..n-1 without gaps.")
    return len(indices)


def body_ops(node: Node) -> list[Node]:
    """Every node of ``node``'s bodies and, recursively, of the bodies of control-flow nodes in them."""
    out: list[Node] = []
    for body in bodies_of(node):
        out.extend(all_nodes(body))
    return out


def bodies_supported(node: Node, is_supported: Callable[[Node], bool]) -> bool:
    """True when ``is_supported`` holds for every compute node of ``node``'s bodies (Parameters,
    Constants and Results aside): a device answering for a control-flow node must run its bodies."""
    return all(is_supported(n) for n in body_ops(node) if n.type_name not in ("Parameter", "Constant", "Result"))
