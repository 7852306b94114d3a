"""What the op conformance suite feeds the ops: sizes, value classes, element types, dynamic cases.

    python benchmarks/opcase_stimulus.py [--examples 10] [--depth standard] [--out FILE]

For every op type and version with a case strategy, it takes the cases the op suite runs (the
``--ovconform-examples`` generated cases, and — where the suite has them — the stimulus cases of
the chosen ``--ovconform-depth``) and measures, per case:

* the largest input of the op under test (elements), and its reduction length K where the op
  reduces (MatMul's inner dim, a convolution's weights volume per output channel, a reduced axis);
* the input channels and the spatial rank of convolutions and poolings;
* value classes of the inputs: the largest finite float magnitude, NaN, ±Inf, -0.0, subnormals,
  negative integers, an integer type's extreme values;
* the element types of the op's inputs and outputs;
* whether a Parameter has dynamic dimensions, and how many shapes the case infers.

It writes a Markdown summary and a per-op-version table. The figures before and after the
stimulus work of issue #20 are ``benchmarks/results/opcase_stimulus_{before,after}.md``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ovconform.ir import Model, Node, constant_value
from ovconform.opcases import OpCase, all_case_keys
from ovconform.suites import _op_runner as R
from ovconform.tolerances import reduction_size

SIZE_BUCKETS = ((0, 8, "< 8"), (8, 64, "8-63"), (64, 1024, "64-1023"), (1024, 65536, "1K-64K"),
                (65536, math.inf, ">= 64K"))
_CONV_POOL = ("Convolution", "GroupConvolution", "ConvolutionBackpropData", "GroupConvolutionBackpropData",
              "DeformableConvolution", "MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool")


@dataclass
class CaseStats:
    """The measured facts of one case."""

    key: tuple[str, int]
    label: str
    largest: int = 0
    k: int | None = None
    channels: int | None = None
    spatial_rank: int | None = None
    types: set[str] = field(default_factory=set)
    max_abs: float = 0.0
    nan: bool = False
    inf: bool = False
    neg_zero: bool = False
    subnormal: bool = False
    neg_int: bool = False
    int_extreme: bool = False
    dynamic: bool = False
    shapes_run: int = 1


def _under_test(case: OpCase) -> list[Node]:
    return R.ops_under_test(case.model, case.op_type) or R.ops_under_test(case.model)


def _input_arrays(case: OpCase, node: Node) -> list[np.ndarray]:
    """The values reaching ``node``'s inputs: fed Parameters (every shape of a dynamic case) and Constants."""
    feeds = [case.inputs] + list(case.extra.get("dynamic_inputs", ()))
    out = []
    for src in node.input_values():
        value = constant_value(src)
        if value is not None:
            out.append(np.asarray(value))
        elif src.node.type_name == "Parameter":
            out.extend(np.asarray(f[src.node.friendly_name]) for f in feeds if src.node.friendly_name in f)
    return out


def _value_classes(stats: CaseStats, arrays: Iterable[np.ndarray], types: list[Any]) -> None:
    for arr, et in zip(arrays, types, strict=False):
        if arr.size == 0:
            continue
        if getattr(et, "name", "") == "bf16":
            from ovconform.ir import bf16_to_f32

            arr = bf16_to_f32(arr)
        if arr.dtype.kind == "f":
            a = arr.astype(np.float64)
            finite = a[np.isfinite(a)]
            if finite.size:
                stats.max_abs = max(stats.max_abs, float(np.max(np.abs(finite))))
            stats.nan |= bool(np.isnan(a).any())
            stats.inf |= bool(np.isinf(a).any())
            stats.neg_zero |= bool(((a == 0) & np.signbit(a)).any())
            tiny = np.finfo(arr.dtype).tiny
            stats.subnormal |= bool(((finite != 0) & (np.abs(finite) < tiny)).any())
        elif arr.dtype.kind in "iu":
            stats.neg_int |= bool((arr < 0).any())
            info = np.iinfo(arr.dtype)
            stats.int_extreme |= bool(((arr == info.min) & (info.min != 0)).any() or (arr == info.max).any())


def measure(case: OpCase, label: str) -> CaseStats:
    stats = CaseStats((case.op_type, case.version), label)
    model: Model = case.model
    stats.dynamic = any(p.get_output_partial_shape(0).is_dynamic for p in model.get_parameters())
    stats.shapes_run = 1 + len(case.extra.get("dynamic_inputs", ()))
    for node in _under_test(case):
        arrays = _input_arrays(case, node)
        sizes = [a.size for a in arrays]
        for i in range(node.get_input_size()):
            ps = node.get_input_partial_shape(i)
            if ps.is_static:
                sizes.append(math.prod(ps.to_shape()))
            stats.types.add(node.get_input_element_type(i).name)
        stats.types.update(node.get_output_element_type(i).name for i in range(node.get_output_size()))
        stats.largest = max([stats.largest, *sizes])
        k = reduction_size(node) if node.get_input_size() else None
        if k is not None:
            stats.k = max(stats.k or 0, k)
        if node.type_name in _CONV_POOL and node.get_input_partial_shape(0).rank.is_static:
            rank = node.get_input_partial_shape(0).rank.get_length()
            stats.spatial_rank = rank - 2
            ps = node.get_input_partial_shape(0)
            if ps.is_static and rank >= 2:
                stats.channels = int(ps.to_shape()[1])
        types = [node.get_input_element_type(i) for i in range(node.get_input_size())]
        port_of: list[Any] = []
        feeds = 1 + len(case.extra.get("dynamic_inputs", ()))
        for i, src in enumerate(node.input_values()):
            port_of.extend([types[i]] * (1 if constant_value(src) is not None else feeds))
        _value_classes(stats, arrays, port_of)
    return stats


def suite_cases(op: str, version: int, examples: int, depth: str) -> list[tuple[str, OpCase]]:
    """The cases the op suite runs for ``op``-``version``: ``(test label, case)``."""
    lister = getattr(R, "suite_cases", None)
    if lister is not None:
        return list(lister(op, version, examples, depth))
    return [(f"case{i}", c) for i, c in enumerate(R.generate_cases(op, version, examples))]


def _bucket(n: int) -> str:
    return next(label for lo, hi, label in SIZE_BUCKETS if lo <= n < hi)


def _fmt_int(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def render(all_stats: list[CaseStats], keys: list[tuple[str, int]], examples: int, depth: str,
           seconds: float) -> str:
    by_key: dict[tuple[str, int], list[CaseStats]] = {k: [] for k in keys}
    for s in all_stats:
        by_key[s.key].append(s)
    n = len(all_stats)
    buckets = Counter(_bucket(s.largest) for s in all_stats)
    never64 = [k for k, ss in by_key.items() if ss and max(s.largest for s in ss) < 64]
    never64k = [k for k, ss in by_key.items() if ss and max(s.largest for s in ss) < 65536]
    types = Counter(t for s in all_stats for t in s.types)
    dyn = [s for s in all_stats if s.dynamic]
    conv = [s for s in all_stats if s.spatial_rank is not None]
    out = [
        "# Op case stimulus",
        "",
        f"Made by `python benchmarks/opcase_stimulus.py --examples {examples} --depth {depth}` "
        f"({len(keys)} op versions, {n} cases, {seconds:.0f} s to generate and measure).",
        "",
        "## Summary",
        "",
        f"* cases whose largest input has < 8 elements: {buckets['< 8']} ({100 * buckets['< 8'] / max(n, 1):.0f} %)",
        f"* op versions that never see 64 elements: {len(never64)} of {len(keys)}; "
        f"never 64K elements: {len(never64k)} of {len(keys)}",
        f"* cases with a reduction length K >= 64: {sum(1 for s in all_stats if (s.k or 0) >= 64)}; "
        f"K >= 256: {sum(1 for s in all_stats if (s.k or 0) >= 256)}; "
        f"K >= 4096: {sum(1 for s in all_stats if (s.k or 0) >= 4096)}",
        f"* convolution/pooling cases: {len(conv)}, of which 2-D: {sum(1 for s in conv if s.spatial_rank == 2)}, "
        f"3-D: {sum(1 for s in conv if s.spatial_rank == 3)}, with >= 16 input channels: "
        f"{sum(1 for s in conv if (s.channels or 0) >= 16)}",
        f"* cases with NaN inputs: {sum(s.nan for s in all_stats)} (op versions: "
        f"{len({s.key for s in all_stats if s.nan})}); ±Inf: {sum(s.inf for s in all_stats)} "
        f"({len({s.key for s in all_stats if s.inf})}); -0.0: {sum(s.neg_zero for s in all_stats)}; "
        f"subnormals: {sum(s.subnormal for s in all_stats)}",
        f"* cases with a finite float input of magnitude >= 50: {sum(s.max_abs >= 50 for s in all_stats)}; "
        f"negative integers: {sum(s.neg_int for s in all_stats)}; an integer type's min/max: "
        f"{sum(s.int_extreme for s in all_stats)}",
        "* element types (cases using each): "
        + ", ".join(f"{t} {c}" for t, c in sorted(types.items(), key=lambda kv: (-kv[1], kv[0]))),
        f"* dynamic cases: {len(dyn)} (op versions: {len({s.key for s in dyn})}); shapes inferred per dynamic "
        f"case: {sorted(Counter(s.shapes_run for s in dyn).items())}",
        "",
        "## Largest input per case",
        "",
        "| elements | cases |",
        "|---|---|",
        *[f"| {label} | {buckets[label]} |" for _, _, label in SIZE_BUCKETS],
        "",
        "## Per op version",
        "",
        "max = the largest input over the cases; K = the longest reduction; values: the largest finite "
        "float magnitude, then the special values seen (nan, inf, -0, sub = subnormal, neg = negative integer, "
        "ext = an integer type's min or max); dyn = dynamic cases / shapes they infer.",
        "",
        "| op | cases | max | K | conv/pool | values | types | dyn |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key in keys:
        ss = by_key[key]
        if not ss:
            out.append(f"| {key[0]}-{key[1]} | 0 | - | - | - | - | - | - |")
            continue
        ks = [s.k for s in ss if s.k is not None]
        special = [name for name, flag in (("nan", any(s.nan for s in ss)), ("inf", any(s.inf for s in ss)),
                                           ("-0", any(s.neg_zero for s in ss)), ("sub", any(s.subnormal for s in ss)),
                                           ("neg", any(s.neg_int for s in ss)), ("ext", any(s.int_extreme for s in ss)))
                   if flag]
        mag = max(s.max_abs for s in ss)
        values = (f"{mag:.3g}" if mag else "-") + (" " + " ".join(special) if special else "")
        cp = [s for s in ss if s.spatial_rank is not None]
        conv_text = "-" if not cp else (
            "/".join(f"{r}-D" for r in sorted({s.spatial_rank for s in cp if s.spatial_rank is not None}))
            + f", C<={max((s.channels or 0) for s in cp)}")
        dyn_ss = [s for s in ss if s.dynamic]
        dyn_text = "-" if not dyn_ss else f"{len(dyn_ss)} / {max(s.shapes_run for s in dyn_ss)}"
        out.append(f"| {key[0]}-{key[1]} | {len(ss)} | {_fmt_int(max(s.largest for s in ss))} | "
                   f"{_fmt_int(max(ks) if ks else None)} | {conv_text} | {values} | "
                   f"{', '.join(sorted(set().union(*(s.types for s in ss))))} | {dyn_text} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=R.DEFAULT_EXAMPLES, help="generated cases per op version")
    parser.add_argument("--depth", default="standard", help="the op suite's depth (quick, standard, exhaustive)")
    parser.add_argument("--out", type=Path, help="write the Markdown here (default: print it)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    keys = all_case_keys()
    stats = [measure(case, label) for key in keys for label, case in suite_cases(*key, args.examples, args.depth)]
    text = render(stats, keys, args.examples, args.depth, time.perf_counter() - start)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
