"""Einsum-7 equations: parsing, checking and output-shape inference.

An equation is ``"<in0>,<in1>,...->[<out>]"`` or, in implicit mode, ``"<in0>,<in1>,..."``.
A subscript is a string of labels (letters ``a-z``/``A-Z``, case-sensitive) with at most one
ellipsis ``...`` standing for any number of (broadcast) dims; a scalar input has the empty
subscript (``"->"`` is the identity of one scalar, ``",->"`` the product of two, ``"i,->i"`` a
vector times a scalar), as the spec and OpenVINO take it. In implicit mode the output is
the ellipsis (when an input has one) followed by the labels that appear exactly once, in
alphabetical (ASCII) order. Repeated labels within an input take a diagonal; labels missing from
the output are summed over. Every dim carrying one label must have one size; ellipsis dims
broadcast together by numpy rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ovconform.ir import Dimension, PartialShape
from ovconform.opset._helpers import broadcast_shapes, require

ELLIPSIS = "..."
_TERM = re.compile(r"^[a-zA-Z]*(\.\.\.)?[a-zA-Z]*$")


@dataclass(frozen=True)
class Equation:
    """A parsed equation: one label list per input (``"..."`` an item) and the output labels."""

    inputs: tuple[tuple[str, ...], ...]
    output: tuple[str, ...]

    def text(self) -> str:
        return ",".join("".join(t) for t in self.inputs) + "->" + "".join(self.output)


def _labels(term: str, equation: str) -> tuple[str, ...]:
    require(_TERM.match(term) is not None,
            f"equation {equation!r}: subscript {term!r} is not allowed; use letters a-z, A-Z and at most one '...'.")
    head, _, tail = term.partition(ELLIPSIS)
    return (*head, ELLIPSIS, *tail) if ELLIPSIS in term else tuple(term)


def parse_equation(equation: str) -> Equation:
    """Parse and check an equation (see the module docstring)."""
    text = equation.replace(" ", "")
    require(text.count("->") <= 1, f"equation {equation!r} has more than one '->'.")
    lhs, arrow, rhs = text.partition("->")
    inputs = tuple(_labels(t, equation) for t in lhs.split(","))
    seen = [lab for t in inputs for lab in t]
    has_ellipsis = ELLIPSIS in seen
    if arrow:
        output = _labels(rhs, equation)
        require(len(set(output)) == len(output), f"equation {equation!r}: output subscript {rhs!r} repeats a label.")
        for lab in output:
            require(lab in seen, f"equation {equation!r}: output label {lab!r} appears in no input subscript.")
        require(not has_ellipsis or ELLIPSIS in output,
                f"equation {equation!r}: an input has '...' but the output subscript does not.")
    else:
        once = sorted(lab for lab in set(seen) if lab != ELLIPSIS and seen.count(lab) == 1)
        output = ((ELLIPSIS,) if has_ellipsis else ()) + tuple(once)
    return Equation(inputs, output)


def einsum_output_shape(eq: Equation, shapes: list[PartialShape]) -> PartialShape:
    """The output shape; checks that ranks fit the subscripts and that label dims agree."""
    dims: dict[str, Dimension] = {}
    ellipsis: PartialShape | None = PartialShape([])
    for i, (labels, shape) in enumerate(zip(eq.inputs, shapes, strict=True)):
        if not shape.has_rank():
            if ELLIPSIS in labels:
                ellipsis = None
            continue
        named = [lab for lab in labels if lab != ELLIPSIS]
        if ELLIPSIS in labels:
            require(len(shape) >= len(named), f"input {i} shape {shape} has fewer dims than the "
                                              f"{len(named)} label(s) of subscript {''.join(labels)!r}.")
        else:
            require(len(shape) == len(named), f"input {i} shape {shape} does not have one dim per label of "
                                              f"subscript {''.join(labels)!r}.")
        pos = labels.index(ELLIPSIS) if ELLIPSIS in labels else len(labels)
        n_ell = len(shape) - len(named)
        for j, lab in enumerate(labels):
            if lab == ELLIPSIS:
                if ellipsis is not None:
                    ellipsis = broadcast_shapes(ellipsis, PartialShape(shape.dims[j:j + n_ell]))
                continue
            d = shape[j if j < pos else j - 1 + n_ell]
            merged = dims[lab].merge(d) if lab in dims else d
            require(merged is not None, f"label {lab!r} has dims of different sizes ({dims.get(lab)} and {d}; "
                                        f"input {i} shape {shape}).")
            assert merged is not None
            dims[lab] = merged
    out: list[Dimension] = []
    for lab in eq.output:
        if lab == ELLIPSIS:
            if ellipsis is None:
                return PartialShape.dynamic()
            out.extend(ellipsis.dims)
        else:
            out.append(dims.get(lab, Dimension()))
    return PartialShape(out)
