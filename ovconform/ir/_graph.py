"""The graph IR: ``Node``, ``Output``, ``Input`` and ``Model`` (names as in OpenVINO's Python API)."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ovconform.errors import NotFoundError, ValidationError
from ovconform.ir._layout import Layout
from ovconform.ir._opdef import OpDef, get_opdef
from ovconform.ir._shape import PartialShape, as_partial_shape
from ovconform.ir._types import Type, as_type

_ids = itertools.count()


class Output:
    """Output port ``index`` of ``node`` (a value in the graph)."""

    __slots__ = ("_index", "_node")

    def __init__(self, node: Node, index: int) -> None:
        self._node = node
        self._index = index

    @property
    def node(self) -> Node:
        return self._node

    @property
    def index(self) -> int:
        return self._index

    def get_node(self) -> Node:
        return self._node

    def get_index(self) -> int:
        return self._index

    def get_element_type(self) -> Type:
        return self._node.get_output_element_type(self._index)

    def get_partial_shape(self) -> PartialShape:
        return self._node.get_output_partial_shape(self._index)

    def get_shape(self) -> tuple[int, ...]:
        return self.get_partial_shape().to_shape()

    @property
    def element_type(self) -> Type:
        return self.get_element_type()

    @property
    def partial_shape(self) -> PartialShape:
        return self.get_partial_shape()

    @property
    def shape(self) -> tuple[int, ...]:
        return self.get_shape()

    def get_names(self) -> set[str]:
        return set(self._node._names_of(self._index))

    @property
    def names(self) -> set[str]:
        return self.get_names()

    def get_any_name(self) -> str:
        names = self._node._names_of(self._index)
        if not names:
            raise NotFoundError(f"output {self._index} of node {self._node.friendly_name!r} has no tensor names.")
        return sorted(names)[0]

    @property
    def any_name(self) -> str:
        return self.get_any_name()

    def set_names(self, names: Iterable[str]) -> None:
        self._node._out_names[self._index] = _check_names(names)

    def add_names(self, names: Iterable[str]) -> None:
        self._node._out_names[self._index] |= _check_names(names)

    def get_target_inputs(self) -> list[Input]:
        return [Input(n, i) for (n, i) in self._node._targets[self._index]]

    def replace(self, replacement: Output) -> None:
        """Make every consumer of this output read ``replacement`` instead."""
        for target in self.get_target_inputs():
            target.replace_source_output(replacement)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Output) and other._node is self._node and other._index == self._index

    def __hash__(self) -> int:
        return hash((id(self._node), self._index))

    def __repr__(self) -> str:
        return (f"<Output: {self._node.friendly_name!r} port {self._index} "
                f"{self.get_element_type()} {self.get_partial_shape()}>")


def _check_names(names: Iterable[str]) -> set[str]:
    if isinstance(names, str):
        names = [names]
    out = set()
    for n in names:
        if not isinstance(n, str) or not n:
            raise ValidationError(f"tensor name {n!r} must be a non-empty string.")
        out.add(n)
    return out


class Input:
    """Input port ``index`` of ``node``."""

    __slots__ = ("_index", "_node")

    def __init__(self, node: Node, index: int) -> None:
        self._node = node
        self._index = index

    def get_node(self) -> Node:
        return self._node

    def get_index(self) -> int:
        return self._index

    def get_source_output(self) -> Output:
        return self._node.input_value(self._index)

    def get_element_type(self) -> Type:
        return self.get_source_output().get_element_type()

    def get_partial_shape(self) -> PartialShape:
        return self.get_source_output().get_partial_shape()

    def get_shape(self) -> tuple[int, ...]:
        return self.get_source_output().get_shape()

    def replace_source_output(self, new_source: Output) -> None:
        self._node.set_argument(self._index, new_source)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Input) and other._node is self._node and other._index == self._index

    def __hash__(self) -> int:
        return hash((id(self._node), self._index))


class Node:
    """One operation. Create nodes with the ``ovconform.opset`` builders or :func:`make_node`."""

    def __init__(self, opdef: OpDef, inputs: Sequence[Output], attrs: dict[str, Any],
                 name: str | None = None, data: np.ndarray | None = None) -> None:
        self._opdef = opdef
        self._unique = f"{opdef.type_name}_{next(_ids)}"
        self.friendly_name = name if name is not None else self._unique
        self._inputs: list[Output] = list(inputs)
        self.attrs: dict[str, Any] = attrs
        self.rt_info: dict[str, Any] = {}
        self.data = data
        self._out_types: list[Type] = []
        self._out_shapes: list[PartialShape] = []
        self._out_names: list[set[str]] = []
        self._targets: list[list[tuple[Node, int]]] = []
        for i, src in enumerate(self._inputs):
            src._node._targets[src._index].append((self, i))

    # -- identity ------------------------------------------------------------------------------
    @property
    def type_name(self) -> str:
        return self._opdef.type_name

    @property
    def version(self) -> int:
        return self._opdef.version

    @property
    def opdef(self) -> OpDef:
        return self._opdef

    def get_type_name(self) -> str:
        return self._opdef.type_name

    def get_version(self) -> int:
        return self._opdef.version

    def get_name(self) -> str:
        return self._unique

    def get_friendly_name(self) -> str:
        return self.friendly_name

    def set_friendly_name(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValidationError(f"friendly name {name!r} must be a non-empty string.")
        self.friendly_name = name

    def get_attributes(self) -> dict[str, Any]:
        return copy.deepcopy(self.attrs)

    def get_rt_info(self) -> dict[str, Any]:
        return self.rt_info

    def set_layout(self, layout: Any) -> None:
        """``Parameter.set_layout``: name the dimensions (kept in ``rt_info["layout"]``)."""
        self.rt_info["layout"] = Layout(layout).to_string()

    def get_layout(self) -> Layout:
        """``Parameter.get_layout``: the ``Layout`` set on this node (empty when none)."""
        return Layout(self.rt_info.get("layout", ""))

    # -- inputs --------------------------------------------------------------------------------
    def get_input_size(self) -> int:
        return len(self._inputs)

    def input_value(self, i: int) -> Output:
        return self._inputs[i]

    def input_values(self) -> list[Output]:
        return list(self._inputs)

    def inputs(self) -> list[Input]:
        return [Input(self, i) for i in range(len(self._inputs))]

    def input(self, i: int) -> Input:
        if not 0 <= i < len(self._inputs):
            raise NotFoundError(f"node {self.friendly_name!r} has no input {i}; it has {len(self._inputs)}.")
        return Input(self, i)

    def get_input_element_type(self, i: int) -> Type:
        return self._inputs[i].get_element_type()

    def get_input_partial_shape(self, i: int) -> PartialShape:
        return self._inputs[i].get_partial_shape()

    def get_input_shape(self, i: int) -> tuple[int, ...]:
        return self._inputs[i].get_shape()

    def set_argument(self, i: int, new_source: Output) -> None:
        old = self._inputs[i]
        old._node._targets[old._index].remove((self, i))
        self._inputs[i] = new_source
        new_source._node._targets[new_source._index].append((self, i))

    # -- outputs -------------------------------------------------------------------------------
    def get_output_size(self) -> int:
        return len(self._out_types)

    def outputs(self) -> list[Output]:
        return [Output(self, i) for i in range(len(self._out_types))]

    def output(self, i: int) -> Output:
        if not 0 <= i < len(self._out_types):
            raise NotFoundError(f"node {self.friendly_name!r} has no output {i}; it has {len(self._out_types)}.")
        return Output(self, i)

    def get_output_element_type(self, i: int) -> Type:
        return self._out_types[i]

    def get_output_partial_shape(self, i: int) -> PartialShape:
        return self._out_shapes[i]

    def get_output_shape(self, i: int) -> tuple[int, ...]:
        return self._out_shapes[i].to_shape()

    def get_output_tensor_names(self, i: int) -> set[str]:
        return set(self._names_of(i))

    def set_output_type(self, i: int, element_type: Type, shape: PartialShape) -> None:
        while len(self._out_types) <= i:
            self._out_types.append(Type.f32)
            self._out_shapes.append(PartialShape.dynamic())
            self._out_names.append(set())
            self._targets.append([])
        self._out_types[i] = as_type(element_type)
        self._out_shapes[i] = as_partial_shape(shape)

    def _names_of(self, i: int) -> set[str]:
        if self._opdef.type_name == "Result":
            return self._inputs[0]._node._names_of(self._inputs[0]._index)
        return self._out_names[i]

    def validate_and_infer_types(self) -> None:
        """Re-run shape/type inference; errors name this node."""
        results = run_inference(self)
        for i, (t, s) in enumerate(results):
            self.set_output_type(i, t, s)
        del self._out_types[len(results):]
        del self._out_shapes[len(results):]
        del self._out_names[len(results):]
        del self._targets[len(results):]

    def __repr__(self) -> str:
        return f"<{self.type_name}-{self.version}: {self.friendly_name!r}>"


def describe(node: Node) -> str:
    return f"{node.type_name}-{node.version} node {node.friendly_name!r}"


def run_inference(node: Node) -> list[tuple[Type, PartialShape]]:
    """Run the op's inference; any failure becomes a ValidationError naming the node."""
    try:
        out = node.opdef.infer(node)
        return [(as_type(t), as_partial_shape(s)) for (t, s) in out]
    except ValidationError as e:
        raise ValidationError(f"{describe(node)}: {e}") from e
    except Exception as e:  # a bug or a numpy error inside inference: still name the node
        raise ValidationError(f"{describe(node)}: shape inference failed: {type(e).__name__}: {e}") from e


def make_node(type_name: str, version: int, inputs: Sequence[Output], attrs: dict[str, Any] | None = None,
              name: str | None = None, data: np.ndarray | None = None) -> Node:
    """Create a node of ``type_name``-``version``: check arity and attributes, infer outputs."""
    opdef = get_opdef(type_name, version)
    label = f"{type_name}-{version} node {name!r}" if name else f"{type_name}-{version} node"
    if name is not None and (not isinstance(name, str) or not name):
        raise ValidationError(f"{label}: friendly name {name!r} must be a non-empty string.")
    n = len(inputs)
    if n < opdef.min_inputs or (opdef.max_inputs >= 0 and n > opdef.max_inputs):
        want = str(opdef.min_inputs) if opdef.min_inputs == opdef.max_inputs else (
            f"{opdef.min_inputs}..{'' if opdef.max_inputs < 0 else opdef.max_inputs}")
        raise ValidationError(f"{label}: got {n} input(s); expected {want}.")
    for i, src in enumerate(inputs):
        if not isinstance(src, Output):
            raise ValidationError(f"{label}: input {i} is {type(src).__name__}, not an Output.")
    try:
        norm = opdef.normalize_attrs(dict(attrs or {}))
    except ValidationError as e:
        raise ValidationError(f"{label}: {e}") from e
    node = Node(opdef, inputs, norm, name, data)
    try:
        node.validate_and_infer_types()
    except ValidationError:
        for i, src in enumerate(inputs):  # unhook from producers: the node never existed
            src._node._targets[src._index].remove((node, i))
        raise
    return node


def constant_value(value: Output) -> np.ndarray | None:
    """The value of ``value`` when it is known at build time (a Constant, or ShapeOf of a static shape)."""
    node = value.node
    if node.type_name == "Constant":
        return node.data
    if node.type_name == "ShapeOf":
        shape = node.get_input_partial_shape(0)
        if shape.is_static:
            return np.array(shape.to_shape(), dtype=node.get_output_element_type(0).to_dtype())
    return None


class Model:
    """A graph: results (and sinks) reachable from parameters.

    ``Model(results, parameters, name)`` or ``Model(results, sinks, parameters, name)`` as in
    OpenVINO. Results may be Result nodes, or nodes/outputs that get a Result each.
    """

    def __init__(self, results: Sequence[Any] | Any, *args: Any, name: str | None = None,
                 sinks: Sequence[Node] | None = None) -> None:
        params: Sequence[Node] | None = None
        if len(args) >= 2 and isinstance(args[1], (list, tuple)):
            sinks, params = args[0], args[1]
            args = args[2:]
        elif args:
            params, args = args[0], args[1:]
        if args:
            name = args[0]
        if len(args) > 1:
            raise ValidationError(f"Model() takes at most 4 positional arguments; got {len(args) + 3}.")
        self._name = name if name else f"Model{next(_ids)}"
        self._results = [_as_result(r) for r in _listify(results)]
        self._sinks = list(sinks or [])
        self._parameters = list(params) if params is not None else None
        self.rt_info: dict[str, Any] = {}
        if self._parameters is None:
            self._parameters = [n for n in self._dfs_order() if n.type_name == "Parameter"]
        self.validate()

    # -- structure -----------------------------------------------------------------------------
    def get_parameters(self) -> list[Node]:
        return list(self._parameters or [])

    def get_results(self) -> list[Node]:
        return list(self._results)

    def get_sinks(self) -> list[Node]:
        return list(self._sinks)

    def add_sinks(self, sinks: Iterable[Node]) -> None:
        self._sinks.extend(sinks)
        self.validate()

    def add_results(self, results: Iterable[Any]) -> None:
        self._results.extend(_as_result(r) for r in results)
        self.validate()

    def add_parameters(self, params: Iterable[Node]) -> None:
        assert self._parameters is not None
        self._parameters.extend(params)
        self.validate()

    def remove_result(self, result: Node) -> None:
        self._results.remove(result)

    def get_ordered_ops(self) -> list[Node]:
        """All nodes in topological order (parameters first, in declared order)."""
        return self._dfs_order()

    def get_ops(self) -> list[Node]:
        return self._dfs_order()

    def get_variables(self) -> list[str]:
        seen: list[str] = []
        for n in self._dfs_order():
            vid = n.attrs.get("variable_id") if n.type_name in ("ReadValue", "Assign") else None
            if vid is not None and vid not in seen:
                seen.append(vid)
        return seen

    @property
    def inputs(self) -> list[Output]:
        return [p.output(0) for p in self.get_parameters()]

    @property
    def outputs(self) -> list[Output]:
        return [r.output(0) for r in self._results]

    def input(self, key: int | str | None = None) -> Output:
        return _pick(self.inputs, key, "input", self._name)

    def output(self, key: int | str | None = None) -> Output:
        return _pick(self.outputs, key, "output", self._name)

    def get_friendly_name(self) -> str:
        return self._name

    def get_name(self) -> str:
        return self._name

    def set_friendly_name(self, name: str) -> None:
        self._name = name

    @property
    def friendly_name(self) -> str:
        return self._name

    def get_rt_info(self) -> dict[str, Any]:
        return self.rt_info

    def is_dynamic(self) -> bool:
        return any(n.get_output_partial_shape(i).is_dynamic
                   for n in self._dfs_order() for i in range(n.get_output_size()))

    def validate_nodes_and_infer_types(self) -> None:
        for n in self._dfs_order():
            n.validate_and_infer_types()
        self.validate()

    # -- traversal and validation ----------------------------------------------------------------
    def _dfs_order(self) -> list[Node]:
        order: list[Node] = []
        state: dict[int, int] = {}  # 1 = on stack, 2 = done
        for p in self._parameters or []:
            state[id(p)] = 2
            order.append(p)
        for root in [*self._results, *self._sinks]:
            if state.get(id(root)) == 2:
                continue
            stack: list[tuple[Node, int]] = [(root, 0)]
            state[id(root)] = 1
            while stack:
                node, i = stack[-1]
                if i < len(node._inputs):
                    stack[-1] = (node, i + 1)
                    child = node._inputs[i]._node
                    s = state.get(id(child))
                    if s == 1:
                        raise ValidationError(f"the graph has a cycle through {describe(child)}.")
                    if s is None:
                        state[id(child)] = 1
                        stack.append((child, 0))
                else:
                    stack.pop()
                    state[id(node)] = 2
                    order.append(node)
        return order

    def validate(self) -> None:
        """Check the graph: no cycles, every Parameter declared, results and sinks well formed,
        tensor names unique. Raises ValidationError naming the node."""
        for r in self._results:
            if r.type_name != "Result" or r.get_input_size() != 1:
                raise ValidationError(f"model {self._name!r}: result {describe(r)} must be a Result with one input.")
        for s in self._sinks:
            if s.type_name != "Assign":
                raise ValidationError(f"model {self._name!r}: sink {describe(s)} must be an Assign.")
        declared = {id(p) for p in self._parameters or []}
        for p in self._parameters or []:
            if p.type_name != "Parameter":
                raise ValidationError(f"model {self._name!r}: {describe(p)} is listed as a parameter but is not one.")
        if len(declared) != len(self._parameters or []):
            raise ValidationError(f"model {self._name!r}: a parameter is listed twice.")
        owner: dict[str, str] = {}
        for node in self._dfs_order():
            if node.type_name == "Parameter" and id(node) not in declared:
                users = [describe(n) for outs in node._targets for (n, _i) in outs]
                raise ValidationError(
                    f"model {self._name!r}: {describe(node)} is used (by {', '.join(users) or 'nothing'}) "
                    "but is not among the model's parameters.")
            if node.type_name == "Result":
                continue
            for i, names in enumerate(node._out_names):
                for nm in names:
                    where = f"{describe(node)} output {i}"
                    if nm in owner and owner[nm] != where:
                        raise ValidationError(
                            f"model {self._name!r}: tensor name {nm!r} is used by both {owner[nm]} and {where}.")
                    owner[nm] = where

    # -- copying -------------------------------------------------------------------------------
    def clone(self) -> Model:
        """A deep copy: changing the clone's nodes, attributes or rt_info never changes this model."""
        mapping: dict[int, Node] = {}
        for old in self._dfs_order():
            new = Node.__new__(Node)
            new._opdef = old._opdef
            new._unique = f"{old.type_name}_{next(_ids)}"
            new.friendly_name = old.friendly_name
            new._inputs = [Output(mapping[id(src._node)], src._index) for src in old._inputs]
            new.attrs = copy.deepcopy(old.attrs)
            new.rt_info = copy.deepcopy(old.rt_info)
            new.data = old.data  # constants are read-only arrays: sharing them is safe
            new._out_types = list(old._out_types)
            new._out_shapes = list(old._out_shapes)
            new._out_names = [set(s) for s in old._out_names]
            new._targets = [[] for _ in old._targets]
            for i, src in enumerate(new._inputs):
                src._node._targets[src._index].append((new, i))
            mapping[id(old)] = new
        m = Model.__new__(Model)
        m._name = self._name
        m._results = [mapping[id(r)] for r in self._results]
        m._sinks = [mapping[id(s)] for s in self._sinks]
        m._parameters = [mapping[id(p)] for p in self._parameters or []]
        m.rt_info = copy.deepcopy(self.rt_info)
        return m

    def __deepcopy__(self, memo: dict[int, Any]) -> Model:
        """``copy.deepcopy`` of a model (a control-flow node's body) is its :meth:`clone`."""
        return self.clone()

    def __repr__(self) -> str:
        return (f"<Model: {self._name!r} inputs={[str(o.get_partial_shape()) for o in self.inputs]} "
                f"outputs={len(self._results)}>")


def _listify(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _as_result(value: Any) -> Node:
    if isinstance(value, Node) and value.type_name == "Result":
        return value
    out = value if isinstance(value, Output) else None
    if isinstance(value, Node):
        if value.get_output_size() != 1:
            raise ValidationError(f"{describe(value)} has {value.get_output_size()} outputs; pass one Output.")
        out = value.output(0)
    if out is None:
        raise ValidationError(f"a model result must be a Node or an Output, not {type(value).__name__}.")
    return make_node("Result", 1, [out])


def _pick(ports: list[Output], key: int | str | None, what: str, model: str) -> Output:
    if key is None:
        if len(ports) != 1:
            raise NotFoundError(f"model {model!r} has {len(ports)} {what}s; name one by index or tensor name.")
        return ports[0]
    if isinstance(key, int) and not isinstance(key, bool):
        if not 0 <= key < len(ports):
            raise NotFoundError(f"model {model!r} has no {what} {key}; it has {len(ports)}.")
        return ports[key]
    for p in ports:
        if key in p.get_names():
            return p
    names = sorted(n for p in ports for n in p.get_names())
    raise NotFoundError(f"model {model!r} has no {what} named {key!r}; {what} names: {names}.")
